import { systemName } from '../../../engine/display-name.js';
import { xml, type Answer, type CallContext } from '../context.js';
import { failure } from '../errors.js';
import { meetingIdOf } from '../params.js';
import { success } from '../xml.js';

/** The engine's reserved name: no participant may be called that (engine/display-name.ts). */
export const systemSender = systemName;
/** The live chat takes up to 2000 characters. */
export const maxChatMessageLength = 2000;

/**
 * sendChatMessage: posts `message` in the meeting's chat in the name of `System`. The
 * message is recorded in the module's store (so a client connecting later can be given it)
 * and handed to the live connection for everyone connected now.
 */
export async function sendChatMessage(ctx: CallContext): Promise<Answer> {
  const meeting = await ctx.deps.meetings.open(ctx.tenant.id, meetingIdOf(ctx.params));
  if (!meeting) throw failure('notFound');
  const text = (ctx.params.get('message') ?? '')
    .replace(/[^\P{Cc}\n\t]/gu, '')
    .replace(/\p{Cs}/gu, '')
    .trim();
  if (text === '') throw failure('missingParamMessage');
  if ([...text].length > maxChatMessageLength)
    throw failure('sizeError', `message must be at most ${maxChatMessageLength} characters long`);
  const delivered = await ctx.deps.live().postSystemChat(meeting.roomId, text);
  await ctx.deps.store.appendChat({
    internalId: meeting.internalId,
    at: ctx.deps.clock.now().getTime(),
    sender: systemSender,
    text,
    delivered,
  });
  return xml(success({ messageKey: 'sentChatMessage', message: 'The message was posted in the chat of the meeting.' }));
}
