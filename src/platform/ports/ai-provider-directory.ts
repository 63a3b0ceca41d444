/**
 * Which AI gateway providers exist (chat model configurations name one). The AI gateway implements
 * it and provides it globally; absent when the gateway is not loaded.
 */
export abstract class AiProviderDirectory {
  abstract exists(name: string): Promise<boolean>;
  /** The provider's wire format, or null when there is no such provider. */
  abstract typeOf(name: string): Promise<'openai' | 'anthropic' | null>;
}
