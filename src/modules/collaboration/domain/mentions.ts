/**
 * @mention parsing (docs/notifications.md §5). Pure: validating targets against the database and dropping the actor
 * happen where the mention is turned into rows and notifications.
 */

export type MentionType = 'user' | 'agent';

export interface MentionTarget {
  type: MentionType;
  /** Lower-cased canonical uuid. */
  uuid: string;
}

export const MAX_MENTIONS_PER_TEXT = 10;
export const MENTION_SNIPPET_LENGTH = 120;

const HEX = '[0-9a-fA-F]';
const UUID = `${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`;
/** `@[Display Name](user:<uuid>)`: the name holds no `]`; the type word is case-insensitive. */
const MENTION_SOURCE = `@\\[([^\\]]*)\\]\\((user|agent):(${UUID})\\)`;

const mentionRegex = (): RegExp => new RegExp(MENTION_SOURCE, 'gi');

function collect(text: string | null | undefined, limit: number): MentionTarget[] {
  const out: MentionTarget[] = [];
  if (!text) return out;
  const seen = new Set<string>();
  for (const m of text.matchAll(mentionRegex())) {
    const target: MentionTarget = { type: m[2].toLowerCase() as MentionType, uuid: m[3].toLowerCase() };
    const key = `${target.type}:${target.uuid}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(target);
    if (out.length >= limit) break;
  }
  return out;
}

/** Distinct `(type, uuid)` targets in text order; parsing stops at the tenth. */
export function parseMentions(text: string | null | undefined): MentionTarget[] {
  return collect(text, MAX_MENTIONS_PER_TEXT);
}

/**
 * Targets of `after` that the previous text did not mention: unchanged mentions never notify again.
 * The previous text is read in full (not capped), so only what it really lacked counts as new.
 */
export function newMentions(before: string | null | undefined, after: string | null | undefined): MentionTarget[] {
  const previous = new Set(collect(before, Number.POSITIVE_INFINITY).map((t) => `${t.type}:${t.uuid}`));
  return parseMentions(after).filter((t) => !previous.has(`${t.type}:${t.uuid}`));
}

/**
 * The text as a notification shows it: mentions become `@Display Name`, whitespace runs one space (ends trimmed);
 * longer than 120 characters → the first 117 followed by `...`. Counted in code points so no surrogate is split.
 */
export function snippet(text: string): string {
  const plain = text.replace(mentionRegex(), (_all, name: string) => `@${name}`).replace(/\s+/g, ' ').trim();
  const chars = Array.from(plain);
  if (chars.length <= MENTION_SNIPPET_LENGTH) return plain;
  return `${chars.slice(0, MENTION_SNIPPET_LENGTH - 3).join('')}...`;
}

