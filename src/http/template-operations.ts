import { operation, type Operation } from './operation.js';
import {
  listTemplatesSchema,
  queueTemplateSchema,
  templateDeletedSchema,
  templateListResponseSchema,
  templateRefSchema,
  templateResponseSchema,
} from './schemas/queue-template.js';

/** Queue templates for branch patterns (docs/queue-patterns.md). */
export const TEMPLATE_OPERATIONS: readonly Operation[] = [
  operation({
    path: '/createQueueTemplate',
    summary: 'Create the template of the queues of the branches matching a pattern; each is created at the first submit to it',
    request: queueTemplateSchema,
    response: templateResponseSchema,
    errorStatuses: [403, 409],
    run: (s, org, input) => s.queueTemplates.create(org, input),
  }),
  operation({
    path: '/listQueueTemplates',
    summary: "The organization's queue templates (of one repository when `repo` is given), by repository and pattern",
    request: listTemplatesSchema,
    response: templateListResponseSchema,
    errorStatuses: [403],
    run: (s, org, input) => s.queueTemplates.list(org, input.repo ? { repo: input.repo } : {}),
  }),
  operation({
    path: '/updateQueueTemplate',
    summary: 'Change the settings of a queue template; omitted settings stay unchanged, queues made from it keep theirs',
    request: queueTemplateSchema,
    response: templateResponseSchema,
    errorStatuses: [403, 404, 409],
    run: (s, org, input) => s.queueTemplates.update(org, input),
  }),
  operation({
    path: '/deleteQueueTemplate',
    summary: 'Delete a queue template (the queues made from it stay); a missing one answers {"deleted": false}',
    request: templateRefSchema,
    response: templateDeletedSchema,
    errorStatuses: [403, 409],
    run: (s, org, input) => s.queueTemplates.delete(org, input),
  }),
];
