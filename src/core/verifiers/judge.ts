import { z } from 'zod';
import { field } from '../schema/fields';
import type { VerifierKind } from './kind';

export const judgeKind: VerifierKind = {
  kind: 'judge',
  summary: 'A judge model grades the answer against a rubric.',
  doc: 'Each rubric item is graded met or not; the score is the share met, and the task passes at `threshold`.',
  fields: {
    rubric: field(z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]), 'The criteria, one string or a list.', ['Cites the source', 'Under 100 words'], true),
    model: field(z.string().min(1), 'The model profile of the judge. Default: the task\'s model.', 'judge'),
    threshold: field(z.number().min(0).max(1), 'The share of criteria that must be met. Default 1.0.', 1),
  },
  snippet: '{ rubric: ["${1:criterion}"] }',
};
