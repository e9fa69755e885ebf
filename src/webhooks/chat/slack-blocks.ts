import type { IncomingWebhookSendArguments } from '@slack/webhook';
import type { ChatMessage } from './chat-message.js';

/**
 * A Slack incoming-webhook message in Block Kit: a section with the headline (linked to the PR) and
 * the one-line summary, a section with the details, a context line naming the queue and the author —
 * `<@U…>` when the login maps to a Slack member, so Slack notifies them. `text` is the notification's
 * fallback. Text is mrkdwn, escaped as Slack asks (&, <, >).
 */
export function slackBlocks(message: ChatMessage): IncomingWebhookSendArguments & { text: string } {
  const headline = message.link ? `*<${message.link.url}|${escape(message.headline)}>*` : `*${escape(message.headline)}*`;
  const who = message.author ? (message.author.chatUser ? `<@${message.author.chatUser}>` : escape(`@${message.author.login}`)) : null;
  const blocks: NonNullable<IncomingWebhookSendArguments['blocks']> = [
    { type: 'section', text: { type: 'mrkdwn', text: `${headline}\n${escape(message.summary)}` } },
  ];
  if (message.details.length > 0) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: message.details.map((d) => `• ${escape(d)}`).join('\n') } });
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `${escape(message.context)}${who ? ` · author ${who}` : ''}` }] });
  return { text: `${message.headline}: ${message.summary}`, blocks };
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
