/** The arguments of a tool that takes none: `{}` (or no arguments at all); any key is an unknown argument. */
export class NoArgsDto {}
