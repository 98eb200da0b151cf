import { ValidationError, type FieldIssue } from '../../../shared/errors/app-error.js';
import type { ElaborationDepth, QuestionOption } from '../idea.entity.js';

export const ELABORATION_DEPTHS: readonly ElaborationDepth[] = ['minimal', 'standard', 'comprehensive'];
export const QUESTION_CATEGORIES = ['functional', 'non_functional', 'business_context', 'technical_context', 'user_scenario', 'scope'] as const;
export const MAX_ROUNDS = 10;
/** Round limits (docs/domain.md §2.9, docs/tool-conventions.md svc_pm_start_elaboration / svc_answer_elaboration). */
export const ROUND_LIMITS = {
  questions: { min: 1, max: 15 },
  options: { min: 2, max: 5 },
  answers: { min: 1, max: 15 },
  idLength: 50,
  questionText: 2000,
  optionLabel: 200,
  optionDescription: 2000,
  customText: 5000,
  skipReason: 2000,
} as const;
const L = ROUND_LIMITS;

export interface QuestionInput {
  id: string;
  text: string;
  category: string;
  options: Array<{ id: string; label: string; description?: string | null }>;
  required?: boolean;
}

export interface ValidQuestion {
  questionId: string;
  text: string;
  category: string;
  options: QuestionOption[];
  required: boolean;
}

const str = (v: unknown): v is string => typeof v === 'string';

/** docs/domain.md §2.9 / docs/tool-conventions.md svc_pm_start_elaboration: 1–15 questions, 2–5 options each, ids unique. */
export function validateRound(depth: unknown, questions: unknown): { depth: ElaborationDepth; questions: ValidQuestion[] } {
  const issues: FieldIssue[] = [];
  if (!(ELABORATION_DEPTHS as readonly unknown[]).includes(depth)) issues.push({ field: 'depth', message: `must be one of ${ELABORATION_DEPTHS.join(', ')}` });
  if (!Array.isArray(questions) || questions.length < L.questions.min || questions.length > L.questions.max) {
    issues.push({ field: 'questions', message: `must hold ${L.questions.min}-${L.questions.max} questions` });
    throw new ValidationError('Invalid arguments', issues);
  }
  const out: ValidQuestion[] = [];
  (questions as QuestionInput[]).forEach((q, i) => {
    const at = `questions.${i}`;
    if (!str(q?.id) || q.id.trim().length < 1 || q.id.length > L.idLength) issues.push({ field: `${at}.id`, message: `must be 1-${L.idLength} characters` });
    if (!str(q?.text) || q.text.trim().length < 1 || q.text.length > L.questionText) issues.push({ field: `${at}.text`, message: `must be 1-${L.questionText} characters` });
    if (!(QUESTION_CATEGORIES as readonly unknown[]).includes(q?.category)) issues.push({ field: `${at}.category`, message: `must be one of ${QUESTION_CATEGORIES.join(', ')}` });
    if (q?.required !== undefined && typeof q.required !== 'boolean') issues.push({ field: `${at}.required`, message: 'must be a boolean' });
    const options = Array.isArray(q?.options) ? q.options : [];
    if (!Array.isArray(q?.options) || options.length < L.options.min || options.length > L.options.max) {
      issues.push({ field: `${at}.options`, message: `must hold ${L.options.min}-${L.options.max} options` });
    }
    options.forEach((o, j) => {
      if (!str(o?.id) || o.id.trim().length < 1 || o.id.length > L.idLength) issues.push({ field: `${at}.options.${j}.id`, message: `must be 1-${L.idLength} characters` });
      if (!str(o?.label) || o.label.trim().length < 1 || o.label.length > L.optionLabel) issues.push({ field: `${at}.options.${j}.label`, message: `must be 1-${L.optionLabel} characters` });
      if (o?.description != null && (!str(o.description) || o.description.length > L.optionDescription)) {
        issues.push({ field: `${at}.options.${j}.description`, message: `must be at most ${L.optionDescription} characters` });
      }
    });
    if (!issues.length) {
      out.push({
        questionId: q.id,
        text: q.text.trim(),
        category: q.category,
        options: options.map((o) => ({ id: o.id, label: o.label.trim(), description: o.description ?? null })),
        required: q.required ?? true,
      });
    }
  });
  if (issues.length) throw new ValidationError('Invalid arguments', issues);
  const seen = new Set<string>();
  for (const q of out) {
    if (seen.has(q.questionId)) throw new ValidationError(`Duplicate question id ${q.questionId}`);
    seen.add(q.questionId);
    const optionIds = new Set<string>();
    for (const o of q.options) {
      if (optionIds.has(o.id)) throw new ValidationError(`Duplicate option id ${o.id} in question ${q.questionId}`);
      optionIds.add(o.id);
    }
  }
  return { depth: depth as ElaborationDepth, questions: out };
}

export interface AnswerInput {
  questionId: string;
  selectedOptionId?: string | null;
  customText?: string | null;
}

export interface RoundQuestion {
  questionId: string;
  options: QuestionOption[];
}

export interface ValidAnswer<Q extends RoundQuestion> {
  question: Q;
  selectedOptionId: string | null;
  customText: string | null;
}

/** svc_answer_elaboration: every answer names a question of the round and a valid option or a non-empty text. */
export function checkAnswers<Q extends RoundQuestion>(questions: readonly Q[], answers: unknown): Array<ValidAnswer<Q>> {
  if (!Array.isArray(answers) || answers.length < L.answers.min || answers.length > L.answers.max) {
    throw new ValidationError('Invalid arguments', [{ field: 'answers', message: `must hold ${L.answers.min}-${L.answers.max} answers` }]);
  }
  const byId = new Map(questions.map((q) => [q.questionId, q]));
  const seen = new Set<string>();
  return (answers as AnswerInput[]).map((a, i) => {
    const question = str(a?.questionId) ? byId.get(a.questionId) : undefined;
    if (!question) throw new ValidationError(`Unknown question ${String(a?.questionId)}`);
    if (seen.has(question.questionId)) throw new ValidationError(`Duplicate answer for question ${question.questionId}`);
    seen.add(question.questionId);
    const selected = a.selectedOptionId ?? null;
    if (selected !== null && !question.options.some((o) => o.id === selected)) {
      throw new ValidationError(`Unknown option ${String(selected)} for question ${question.questionId}`);
    }
    if (a.customText != null && (!str(a.customText) || a.customText.length > L.customText)) {
      throw new ValidationError('Invalid arguments', [{ field: `answers.${i}.customText`, message: `must be at most ${L.customText} characters` }]);
    }
    const customText = a.customText?.trim() ? a.customText.trim() : null;
    if (selected === null && customText === null) throw new ValidationError(`Question ${question.questionId} needs an option or a non-empty customText`);
    return { question, selectedOptionId: selected, customText };
  });
}

/** Skip reasons: 1–2,000 characters after trimming (docs/domain.md §1). */
export function skipReason(value: unknown): string {
  const reason = str(value) ? value.trim() : '';
  if (reason.length < 1 || reason.length > L.skipReason) throw new ValidationError('Invalid arguments', [{ field: 'reason', message: `must be 1-${L.skipReason} characters` }]);
  return reason;
}
