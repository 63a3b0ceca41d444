import { answerText, modelRequest, toOpenAiMessages } from '../../../src/modules/chats/chat-model-wire';
import type { ChatMessage } from '../../../src/modules/chats/entities/chat-message.entity';

const message = (role: string, content: Record<string, unknown>[]): ChatMessage => ({
  id: '1',
  chatId: 'c',
  role,
  content,
  modelConfigId: null,
  inputTokens: '0',
  outputTokens: '0',
  reasoningTokens: '0',
  cacheReadTokens: '0',
  cacheWriteTokens: '0',
  totalCostMicros: null,
  runtimeMs: 0,
  createdAt: new Date(0),
});

describe('chats: the stored history as model messages', () => {
  it('user texts joined, assistant tool calls as function calls, tool results one message each', () => {
    const history = [
      message('user', [
        { type: 'text', text: 'fix' },
        { type: 'file', file_id: 'f' },
        { type: 'text', text: 'the build' },
      ]),
      message('assistant', [
        { type: 'tool-call', tool_call_id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' },
        { type: 'tool-call', tool_call_id: 'call_2', name: 'run_command', arguments: '{"command":"make"}' },
      ]),
      message('tool', [
        { type: 'tool-result', tool_call_id: 'call_1', name: 'read_file', ok: true, output: 'contents' },
        { type: 'tool-result', tool_call_id: 'call_2', name: 'run_command', ok: false },
      ]),
      message('assistant', [{ type: 'text', text: 'done' }]),
    ];
    expect(toOpenAiMessages(history)).toEqual([
      { role: 'user', content: 'fix\nthe build' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'run_command', arguments: '{"command":"make"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'contents' },
      { role: 'tool', tool_call_id: 'call_2', content: '' },
      { role: 'assistant', content: 'done' },
    ]);
  });
});

describe('chats: the model call', () => {
  const messages = [
    { role: 'user' as const, content: 'hi' },
    { role: 'assistant' as const, content: null, tool_calls: [{ id: 'x' }] },
    { role: 'tool' as const, tool_call_id: 'x', content: 'out' },
  ];

  it('OpenAI: chat completions (the provider API path), tools only when given', () => {
    expect(modelRequest('openai', 'gpt', messages, [{ type: 'function' }])).toEqual({
      path: '/v1/chat/completions',
      body: { model: 'gpt', messages, tools: [{ type: 'function' }] },
    });
    expect(modelRequest('openai', 'gpt', messages, undefined).body).toEqual({ model: 'gpt', messages });
  });

  it('Anthropic: messages with user and assistant texts only, max_tokens 4096', () => {
    expect(modelRequest('anthropic', 'sonnet', messages, [{ type: 'function' }])).toEqual({
      path: '/v1/messages',
      body: {
        model: 'sonnet',
        max_tokens: 4096,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: '' },
        ],
      },
    });
  });
});

// The tool calls and the usage are read once, by the AI gateway's wire reader (its record of the
// call; test/unit/ai-gateway-provider-wire.spec.ts): the chat takes only the text.
describe("chats: the model's answer text", () => {
  it('OpenAI: the first choice only', () => {
    expect(
      answerText('openai', {
        choices: [
          { message: { content: 'let me look', tool_calls: [{ id: 'call_1' }] } },
          { message: { content: 'ignored' } },
        ],
      }),
    ).toBe('let me look');
  });

  it('OpenAI: no content, or no answer, is an empty text', () => {
    expect(answerText('openai', { choices: [{ message: { content: null } }] })).toBe('');
    expect(answerText('openai', null)).toBe('');
  });

  it('Anthropic: text blocks joined, tool_use blocks left out', () => {
    expect(
      answerText('anthropic', {
        content: [
          { type: 'text', text: 'a' },
          { type: 'tool_use', id: 'toolu_1', name: 'list_directory', input: { path: 'src' } },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('ab');
  });
});
