/** Longest value quoted whole in a message; longer ones are cut with an ellipsis. */
export const MESSAGE_VALUE_CHARS = 80;

/** `s` cut to `max` characters, the last of them an ellipsis, so a message stays one readable line. */
export function cut(s: string, max = MESSAGE_VALUE_CHARS): string {
  const line = s.replace(/\r?\n/g, '\\n');
  return line.length <= max ? line : line.slice(0, max - 1) + '…';
}

/** A message with every `backticked` value cut (keys, ids and names come from the file). */
export function cutQuoted(message: string, max = MESSAGE_VALUE_CHARS): string {
  return message.replace(/`([^`]*)`/g, (_, v: string) => '`' + cut(v, max) + '`');
}
