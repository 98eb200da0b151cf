/** The server's `instructions` (platform.md §4): how an agent starts. */
export const SERVER_INSTRUCTIONS = 'Start with svc_checkin.';
