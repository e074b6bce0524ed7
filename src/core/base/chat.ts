/** One message of a chat prompt: what a task's `messages` resolve to and what a provider is sent. */
export interface ChatMessage {
  readonly role: string;
  readonly content: string;
}
