import { ReceiverNetworks } from '../../src/webhooks/receiver-networks.js';
import { sendSlackDirectMessage } from '../../src/webhooks/chat/slack-dm.js';
import { SlackApiStandIn } from '../e2e/slack-api-stand-in.js';
import { LOOPBACK_NETWORKS } from '../e2e/webhook-receiver.js';

/** Slack's Web API is reached through the same SSRF guard as every receiver (docs/notifications.md). */
describe('a direct message through the SSRF guard', () => {
  let slack: SlackApiStandIn;
  beforeAll(async () => {
    slack = await SlackApiStandIn.start();
  });
  afterAll(() => slack.close());

  const message = { headline: 'h', summary: 's', details: [], author: { login: 'dev', chatUser: 'U1' }, link: null, context: 'c' };

  test('a Slack API URL inside the network is refused unless its network is allowed, and is never called', async () => {
    const refused = await sendSlackDirectMessage('xoxb-1-2-t', 'U1', message, { networks: new ReceiverNetworks(), timeoutMs: 1_000, apiUrl: slack.apiUrl });
    expect(refused).toEqual({ ok: false, status: null, error: 'refused: private address' });
    expect(slack.calls).toEqual([]);
    const allowed = await sendSlackDirectMessage('xoxb-1-2-t', 'U1', message, { networks: new ReceiverNetworks(LOOPBACK_NETWORKS), timeoutMs: 1_000, apiUrl: slack.apiUrl });
    expect(allowed).toEqual({ ok: true, status: 200 });
    expect(slack.calls.map((c) => c.method)).toEqual(['chat.postMessage']);
  });
});
