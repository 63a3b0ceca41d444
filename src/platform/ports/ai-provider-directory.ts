/**
 * Which AI gateway providers exist (chat model configurations name one). The AI gateway implements
 * it and provides it globally; absent when the gateway is not loaded.
 */
export abstract class AiProviderDirectory {
  abstract exists(name: string): Promise<boolean>;
}
