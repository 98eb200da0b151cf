/**
 * The 84 tool names in the order of docs/tool-conventions.md §5/§6 (public reads, public writes, session, developer, PM, admin).
 * `tools/list` follows this order; the registry refuses a @Tool whose name is not here.
 */
export const TOOL_ORDER: readonly string[] = [
  // public reads
  'svc_checkin', 'svc_get_my_assignments', 'svc_list_projects', 'svc_get_project', 'svc_get_ideas', 'svc_get_idea',
  'svc_get_available_ideas', 'svc_get_documents', 'svc_get_document', 'svc_get_proposals', 'svc_get_proposal',
  'svc_get_task', 'svc_list_tasks', 'svc_get_available_tasks', 'svc_get_unblocked_tasks', 'svc_get_activity',
  'svc_get_comments', 'svc_get_elaboration', 'svc_get_project_groups', 'svc_get_project_group',
  'svc_get_group_dashboard', 'svc_search', 'svc_search_mentionables',
  // public writes
  'svc_add_comment', 'svc_answer_elaboration', 'svc_get_notifications', 'svc_mark_notification_read',
  'svc_snooze_notification', 'svc_unarchive_notification', 'svc_create_tasks', 'svc_update_task',
  // session
  'svc_create_session', 'svc_session_checkin_task', 'svc_session_checkout_task', 'svc_session_heartbeat',
  'svc_close_session', 'svc_reopen_session', 'svc_list_sessions', 'svc_get_session',
  // developer
  'svc_claim_task', 'svc_release_task', 'svc_submit_for_verify', 'svc_report_criteria_self_check', 'svc_report_work',
  // PM
  'svc_claim_idea', 'svc_release_idea', 'svc_move_idea', 'svc_pm_create_idea', 'svc_edit_idea',
  'svc_pm_start_elaboration', 'svc_pm_skip_elaboration', 'svc_pm_validate_elaboration', 'svc_pm_create_proposal',
  'svc_pm_validate_proposal', 'svc_pm_submit_proposal', 'svc_pm_add_document_draft', 'svc_pm_add_task_draft',
  'svc_pm_update_document_draft', 'svc_pm_update_task_draft', 'svc_pm_remove_document_draft',
  'svc_pm_remove_task_draft', 'svc_pm_reject_proposal', 'svc_pm_revoke_proposal', 'svc_pm_assign_task',
  'svc_pm_create_document', 'svc_pm_update_document', 'svc_create_report', 'svc_add_reference',
  'svc_update_reference', 'svc_remove_reference',
  // admin
  'svc_admin_approve_proposal', 'svc_admin_close_proposal', 'svc_admin_verify_task', 'svc_admin_reopen_task',
  'svc_admin_close_task', 'svc_mark_acceptance_criteria', 'svc_admin_delete_task', 'svc_admin_delete_idea',
  'svc_admin_delete_document', 'svc_admin_create_project', 'svc_admin_create_project_group',
  'svc_admin_update_project_group', 'svc_admin_delete_project_group', 'svc_admin_move_project_to_group',
];

export const TOOL_RANK: ReadonlyMap<string, number> = new Map(TOOL_ORDER.map((n, i) => [n, i]));
