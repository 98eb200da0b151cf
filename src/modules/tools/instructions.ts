/**
 * The server's `instructions` (docs/platform.md §4): how an agent should start, the idea → proposal → task flow, where to
 * find work and how the request headers narrow the tools. Under 1,500 characters; every tool it names exists
 * (instructions.spec.ts).
 */
export const SERVER_INSTRUCTIONS = [
  'Start with svc_checkin: it returns your identity, permissions, recent ideas and unread notifications. ' +
    'Then call svc_get_my_assignments for your ideas and unfinished tasks.',
  'Flow: an idea (svc_pm_create_idea) is claimed (svc_claim_idea) and clarified with humans (svc_pm_start_elaboration, ' +
    'or svc_pm_skip_elaboration once they agree); a resolved idea feeds a proposal (svc_pm_create_proposal) with document ' +
    'and task drafts, checked with svc_pm_validate_proposal and submitted with svc_pm_submit_proposal; once an admin ' +
    'approves it, its tasks are open.',
  'Finding work: svc_get_available_tasks lists open tasks whose prerequisites are finished; claim one with svc_claim_task, ' +
    'start it with svc_update_task (status in_progress), record criteria with svc_report_criteria_self_check and finish ' +
    'with svc_submit_for_verify. Ideas to take are in svc_get_available_ideas.',
  'Only the tools your permissions allow are listed. Results and errors are JSON; hints in an error name the tool that moves the record on.',
  'Headers: X-Service-Project-Group or X-Service-Project (uuids) limit svc_get_my_assignments to those projects. ' +
    'X-MCP-Tools: <name,...> lists only the named tools and X-MCP-Readonly: true only the read-only ones; ' +
    'they never add a tool your permissions do not allow.',
].join('\n');
