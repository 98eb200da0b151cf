import { z } from 'zod';

/**
 * Building blocks for tool input schemas (tools.md §1–§5). Every object is strict (`additionalProperties: false`);
 * limits follow domain.md §1. Schemas are compiled once at boot by the registry.
 */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const uuid = (description?: string) => {
  const s = z.string().regex(UUID, 'must be a canonical uuid');
  return description ? s.describe(description) : s;
};

/** Titles and names: 1–200 characters (blank is refused by the services after trimming). */
export const title = (description = 'Title, 1-200 characters') => z.string().min(1).max(200).describe(description);
export const longText = (description: string, max = 100_000) => z.string().max(max).describe(description);

export const page = z.number().int().min(1).optional().describe('Page number, from 1 (default 1)');
export const pageSize = z.number().int().min(1).max(100).optional().describe('Rows per page, 1-100 (default 20)');
export const paging = { page, pageSize };

export const priority = z.enum(['low', 'medium', 'high']);
export const storyPoints = z.number().min(0).max(1000);
export const taskStatus = z.enum(['open', 'assigned', 'in_progress', 'to_verify', 'done', 'closed']);
export const documentDraftType = z.enum(['prd', 'tech_design', 'adr', 'spec', 'guide']);
export const documentType = z.enum(['prd', 'tech_design', 'adr', 'spec', 'guide', 'report']);
export const targetType = z.enum(['idea', 'proposal', 'task', 'document']);
export const referenceTargetType = z.enum(['idea', 'proposal', 'task']);
export const referenceType = z.enum(['docs', 'repo', 'issue_pr', 'paper_blog']);

export const criteriaItems = z
  .array(
    z.strictObject({
      description: z.string().max(2000).describe('What must be true; 1-2000 characters'),
      required: z.boolean().optional().describe('Required for verification (default true)'),
    }),
  )
  .min(1)
  .max(50)
  .describe('Acceptance criteria, 1-50 items; at least one with a non-blank description');

export const referenceInput = z.strictObject({
  type: referenceType.describe('Kind of link'),
  url: z.string().max(2048).describe('http:// or https:// URL; never fetched'),
  title: title('Link title'),
  notes: z.string().max(500).optional().describe('Notes, at most 500 characters'),
});
export const references = z.array(referenceInput).max(10).optional().describe('Up to 10 external links to attach');

export const empty = z.strictObject({});
