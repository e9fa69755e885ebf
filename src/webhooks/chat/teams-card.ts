import type { ChatMessage } from './chat-message.js';

/**
 * What a Microsoft Teams Workflows webhook ("When a Teams webhook request is received") is posted: a
 * message with one Adaptive Card (1.4): the headline, the summary, the details, the queue and the
 * author — `<at>login</at>` with a `msteams` mention entity when the login maps to a Teams user, so
 * Teams notifies them — and a button to the PR.
 */
export function teamsCard(message: ChatMessage) {
  const mentioned = message.author?.chatUser ? message.author : null;
  const who = message.author ? (mentioned ? `<at>${message.author.login}</at>` : `@${message.author.login}`) : null;
  const body: Record<string, unknown>[] = [
    { type: 'TextBlock', text: message.headline, weight: 'Bolder', size: 'Medium', wrap: true },
    { type: 'TextBlock', text: message.summary, wrap: true },
  ];
  for (const d of message.details) body.push({ type: 'TextBlock', text: `- ${d}`, wrap: true, spacing: 'None' });
  body.push({ type: 'TextBlock', text: `${message.context}${who ? ` · author ${who}` : ''}`, isSubtle: true, size: 'Small', wrap: true });
  const content: Record<string, unknown> = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body,
    ...(message.link ? { actions: [{ type: 'Action.OpenUrl', title: message.link.title, url: message.link.url }] } : {}),
    ...(mentioned
      ? { msteams: { entities: [{ type: 'mention', text: `<at>${mentioned.login}</at>`, mentioned: { id: mentioned.chatUser, name: mentioned.login } }] } }
      : {}),
  };
  return { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content }] };
}
