import { z } from 'zod';
import { targetBranchSchema } from './common.js';
import { optionalField } from './fields.js';
import { settingsFields } from './queue.js';
import { eventsField, mentionsField, verdictsField } from './webhooks.js';
import { patternSchema } from './queue-template.js';

/** At most this many queues in one file. */
export const MAX_FILE_QUEUES = 200;
/** At most this many chat channels in one file. */
export const MAX_FILE_CHANNELS = 20;

/**
 * One queue of `.github/mergeq.yml`: `branch` or `pattern`, and any settings of createQueue (the
 * same zod fields, so every setting the API gains is a setting of the file too).
 */
const fileQueueSchema = z
  .strictObject({
    branch: optionalField(targetBranchSchema.describe('the branch of the queue')),
    pattern: optionalField(patternSchema.describe('a branch pattern: the template of the queues of the branches matching it')),
    ...settingsFields,
  })
  .superRefine((q, ctx) => {
    if ((q.branch === undefined) === (q.pattern === undefined)) ctx.addIssue({ code: 'custom', message: 'needs exactly one of branch or pattern' });
  });

/**
 * One chat channel's rules for this repository's events (docs/notifications.md): the channel is
 * registered with its secret URL (and bot token) through the API or the CLI, and named here by its
 * name or id; what the file leaves out stays the channel's own.
 */
const fileChannelSchema = z.strictObject({
  channel: z
    .string({ error: (iss) => (iss.input === undefined ? 'Required' : 'expected a string') })
    .min(1, { error: 'must not be empty' })
    .max(100, { error: 'must be at most 100 characters' })
    .describe("the channel's name or id (wh_…), as `mergeq webhook list` shows it"),
  events: optionalField(eventsField),
  verdicts: optionalField(verdictsField),
  branches: optionalField(
    z.array(patternSchema, { error: 'expected an array of branch names or patterns' }).min(1, { error: 'name at least one branch' }).max(50, { error: 'at most 50 entries' }),
  ).describe('only events of the queues of these branches (names or patterns such as release/*)'),
  mentions: optionalField(mentionsField).describe("GitHub login → chat user to mention, over the channel's own map"),
});

/** `.github/mergeq.yml` (docs/mergeq-yml.md); published as JSON Schema at /v1/schemas/mergeq.yml.json. */
export const mergeqYmlSchema = z
  .strictObject({
    queues: optionalField(z.array(fileQueueSchema).max(MAX_FILE_QUEUES, { error: `at most ${MAX_FILE_QUEUES} queues` }))
      .transform((v) => v ?? [])
      .describe('the queues of this repository, each by branch or by pattern, with their settings'),
    channels: optionalField(z.array(fileChannelSchema).max(MAX_FILE_CHANNELS, { error: `at most ${MAX_FILE_CHANNELS} channels` }))
      .transform((v) => v ?? [])
      .describe("chat channels' rules for this repository's events; each channel is registered through the API or CLI (its URL is a secret)"),
  })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.queues.forEach((q, i) => {
      const name = q.branch === undefined ? `pattern ${q.pattern}` : `branch ${q.branch}`;
      if (seen.has(name)) ctx.addIssue({ code: 'custom', path: ['queues', i, q.branch === undefined ? 'pattern' : 'branch'], message: `${name} is named twice` });
      seen.add(name);
    });
    const channels = new Set<string>();
    file.channels.forEach((c, i) => {
      if (channels.has(c.channel.toLowerCase())) ctx.addIssue({ code: 'custom', path: ['channels', i, 'channel'], message: `channel ${c.channel} is named twice` });
      channels.add(c.channel.toLowerCase());
    });
  })
  .describe('mergeq settings kept in the repository: .github/mergeq.yml on the default branch');

/** The file's JSON Schema (draft 2020-12), for editors (yaml-language-server, SchemaStore-style `$schema`). */
export function mergeqYmlJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(mergeqYmlSchema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }), title: '.github/mergeq.yml' };
}
