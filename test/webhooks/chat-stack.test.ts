import { reason } from '../../src/domain/reasons.js';
import { transition } from '../../src/domain/transition.js';
import { queueEvents } from '../../src/events/queue-events.js';
import { chatMessageOf } from '../../src/webhooks/chat/chat-message.js';
import { slackBlocks } from '../../src/webhooks/chat/slack-blocks.js';
import { slackMessage } from '../../src/webhooks/payload.js';
import { aQueue, anEntry, at } from '../store/fixtures.js';

/** A chat channel (`slack_blocks`, `teams`, plain `slack`) told of a stack member names its stack: its layer and the members of its unit. */
test("a stack member's chat message names GitHub's stack number, its layer of the unit and the members", () => {
  const queue = aQueue({ version: 1 });
  const members = [11, 12, 13].map((prNumber, i) => anEntry(queue.id, { prNumber, id: `e${prNumber}`, stack: { id: 'native:9004', number: 4, position: i + 1, kind: 'native' } }));
  const failed = transition(members[2]!, 'FAILED', reason('stack_member_failed', 'bisection named #12 below it in its stack'), new Date(at(2)));
  const events = queueEvents({ ...queue, entries: members }, { ...queue, version: 2, entries: [members[0]!, members[1]!, failed] }, at(3));
  expect(events.map((e) => e.type)).toEqual(['pull_request.failed']);

  const message = chatMessageOf(events[0]!, {});
  expect(message.details).toContain('stack #4 (native), layer 3 of 3: #11, #12, #13');
  expect(JSON.stringify(slackBlocks(message).blocks)).toContain('stack #4 (native), layer 3 of 3: #11, #12, #13');
  // The one-line `slack` format too.
  expect(slackMessage(events[0]!).text).toContain('(stack #4 (native), layer 3 of 3: #11, #12, #13) failed in the');
});
