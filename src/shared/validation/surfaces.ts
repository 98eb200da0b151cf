/**
 * The two ways in validate the same DTOs with one difference: the checks REST leaves to the application service (so
 * that a REST client gets the domain's message, see fields.ts) carry this class-validator group. REST validates with
 * `strictGroups` and no group, which skips them; tools validate with this group and `always`, which runs everything.
 */
export const TOOL_CHECKS = 'tool-checks';

/** class-validator options of the REST pipe's checks: every check but the tools-only ones. */
export const REST_CHECKS = { strictGroups: true } as const;

/** class-validator options of the tool arguments' checks: every check, the first failure per field reported. */
export const ALL_CHECKS = { groups: [TOOL_CHECKS], always: true, stopAtFirstError: true } as const;
