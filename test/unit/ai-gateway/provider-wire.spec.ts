import {
  clientFromUserAgent,
  maskKey,
  requestFacts,
  ResponseCollector,
  responseFacts,
  wireApi,
} from '../../../src/modules/ai-gateway/wire/provider-wire';

const sse = (events: { event?: string; data: unknown }[]): Buffer =>
  Buffer.from(
    events
      .map(
        ({ event, data }) =>
          `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
      )
      .join(''),
  );

describe('AI gateway provider wire: which API a path is', () => {
  it.each([
    ['openai', '/v1/chat/completions', 'chat_completions'],
    ['openai', '/v1/chat/completions/?stream=1', 'chat_completions'],
    ['openai', '/v1/responses', 'responses'],
    ['openai', '/v1/messages', null],
    ['anthropic', '/v1/messages', 'messages'],
    ['anthropic', '/v1/chat/completions', null],
    ['openai', '/v1/models', null],
  ] as const)('%s %s is %s', (type, path, api) => {
    expect(wireApi(type, path)).toBe(api);
  });
});

describe('AI gateway provider wire: request mapping', () => {
  it('OpenAI chat completions: model, stream, the last user text, and the tool results it carries', () => {
    const facts = requestFacts('openai', '/v1/chat/completions', {
      model: 'gpt-4o',
      stream: true,
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1' }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look at' },
            { type: 'image_url', image_url: { url: 'x' } },
            { type: 'text', text: 'this' },
          ],
        },
      ],
    });
    expect(facts).toEqual({
      api: 'chat_completions',
      model: 'gpt-4o',
      stream: true,
      prompt: 'look at\nthis',
      toolResultIds: ['call_1'],
    });
  });

  it('Anthropic messages: tool_result blocks are tool results; no user text is no prompt', () => {
    const facts = requestFacts('anthropic', '/v1/messages', {
      model: 'claude',
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }] },
      ],
    });
    expect(facts).toEqual({
      api: 'messages',
      model: 'claude',
      stream: false,
      prompt: null,
      toolResultIds: ['toolu_1'],
    });
  });

  it('OpenAI responses: a string input is the prompt; items carry function_call_output results', () => {
    expect(requestFacts('openai', '/v1/responses', { model: 'm', input: 'hello' }).prompt).toBe('hello');
    const facts = requestFacts('openai', '/v1/responses', {
      model: 'm',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'do it' }] },
        { type: 'function_call_output', call_id: 'fc_1', output: '{}' },
      ],
    });
    expect(facts.prompt).toBe('do it');
    expect(facts.toolResultIds).toEqual(['fc_1']);
  });

  it('a body that is not an object, or an unknown API, gives empty facts', () => {
    expect(requestFacts('openai', '/v1/embeddings', { model: 'e', input: 'x' })).toEqual({
      api: null,
      model: 'e',
      stream: false,
      prompt: null,
      toolResultIds: [],
    });
    expect(requestFacts('openai', '/v1/chat/completions', 'nonsense').model).toBe('');
  });
});

describe('AI gateway provider wire: response mapping and usage accounting', () => {
  it('OpenAI chat completions: cached prompt tokens are counted apart from the input', () => {
    const facts = responseFacts('chat_completions', {
      id: 'chatcmpl-1',
      model: 'gpt-4o',
      choices: [
        {
          message: {
            tool_calls: [{ id: 'call_1', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 100, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 30 } },
    });
    expect(facts).toEqual({
      responseId: 'chatcmpl-1',
      model: 'gpt-4o',
      usage: { input: 70, output: 20, cacheRead: 30, cacheWrite: 0, metadata: { prompt_cached: 30 } },
      toolCalls: [{ id: 'call_1', name: 'read_file', input: '{"path":"a"}' }],
      error: null,
    });
  });

  it('OpenAI responses: input/output tokens and input_tokens_details; function_call items', () => {
    const facts = responseFacts('responses', {
      id: 'resp_1',
      model: 'o4',
      output: [
        { type: 'message', content: [] },
        { type: 'function_call', call_id: 'fc_1', name: 'run', arguments: '{}' },
      ],
      usage: { input_tokens: 50, output_tokens: 5, input_tokens_details: { cached_tokens: 10 } },
    });
    expect(facts.usage).toEqual({
      input: 40,
      output: 5,
      cacheRead: 10,
      cacheWrite: 0,
      metadata: { prompt_cached: 10 },
    });
    expect(facts.toolCalls).toEqual([{ id: 'fc_1', name: 'run', input: '{}' }]);
  });

  it('Anthropic messages: cache read and cache creation tokens; tool_use input as JSON', () => {
    const facts = responseFacts('messages', {
      id: 'msg_1',
      model: 'claude',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'tool_use', id: 'toolu_1', name: 'list', input: { path: '.' } },
      ],
      usage: {
        input_tokens: 12,
        output_tokens: 7,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 40,
        cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 10 },
        server_tool_use: { web_search_requests: 2 },
      },
    });
    expect(facts.usage).toEqual({
      input: 12,
      output: 7,
      cacheRead: 100,
      cacheWrite: 40,
      metadata: {
        cache_read_input: 100,
        cache_creation_input: 40,
        cache_ephemeral_5m_input: 30,
        cache_ephemeral_1h_input: 10,
        web_search_requests: 2,
      },
    });
    expect(facts.toolCalls).toEqual([{ id: 'toolu_1', name: 'list', input: '{"path":"."}' }]);
  });

  it('OpenAI chat completions: reasoning, audio and prediction token counts go to the metadata', () => {
    const facts = responseFacts('chat_completions', {
      usage: {
        prompt_tokens: 20,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: 4, audio_tokens: 1 },
        completion_tokens_details: {
          reasoning_tokens: 6,
          audio_tokens: 0,
          accepted_prediction_tokens: 2,
          rejected_prediction_tokens: 1,
        },
      },
    });
    expect(facts.usage?.metadata).toEqual({
      prompt_cached: 4,
      prompt_audio: 1,
      completion_reasoning: 6,
      completion_audio: 0,
      completion_accepted_predictions: 2,
      completion_rejected_predictions: 1,
    });
  });

  it('no usage is null usage (not zeros); cached tokens never make the input negative', () => {
    expect(responseFacts('chat_completions', { id: 'x' }).usage).toBeNull();
    expect(
      responseFacts('chat_completions', {
        usage: { prompt_tokens: 5, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 9 } },
      }).usage,
    ).toEqual({ input: 0, output: 1, cacheRead: 9, cacheWrite: 0, metadata: { prompt_cached: 9 } });
  });

  it('errors: the type (or the code) and the message', () => {
    expect(
      responseFacts('chat_completions', { error: { code: 'rate_limit', message: 'slow down' } }).error,
    ).toEqual({ type: 'rate_limit', message: 'slow down' });
    expect(responseFacts('messages', { type: 'error', error: { message: 'boom' } }).error).toEqual({
      type: 'error',
      message: 'boom',
    });
  });
});

describe('AI gateway provider wire: streamed responses', () => {
  it('OpenAI chat completions: tool call deltas are joined; the usage chunk is read', () => {
    const collector = new ResponseCollector('chat_completions', true);
    const bytes = sse([
      {
        data: {
          id: 'c1',
          model: 'gpt',
          choices: [
            {
              delta: {
                tool_calls: [{ index: 0, id: 'call_1', function: { name: 'run', arguments: '{"com' } }],
              },
            },
          ],
        },
      },
      {
        data: {
          id: 'c1',
          choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: 'mand":1}' } }] } }],
        },
      },
      { data: { id: 'c1', choices: [], usage: { prompt_tokens: 9, completion_tokens: 3 } } },
      { data: '[DONE]' },
    ]);
    // Split mid-event: the collector must not depend on chunk boundaries.
    collector.push(bytes.subarray(0, 37));
    collector.push(bytes.subarray(37));
    expect(collector.finish()).toEqual({
      responseId: 'c1',
      model: 'gpt',
      usage: { input: 9, output: 3, cacheRead: 0, cacheWrite: 0, metadata: {} },
      toolCalls: [{ id: 'call_1', name: 'run', input: '{"command":1}' }],
      error: null,
    });
  });

  it('Anthropic messages: message_start usage, then message_delta output; tool input from json deltas', () => {
    const collector = new ResponseCollector('messages', true);
    collector.push(
      sse([
        {
          event: 'message_start',
          data: {
            type: 'message_start',
            message: {
              id: 'msg_1',
              model: 'claude',
              usage: { input_tokens: 20, output_tokens: 1, cache_read_input_tokens: 5 },
            },
          },
        },
        {
          event: 'content_block_start',
          data: {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file' },
          },
        },
        {
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: '{"path":' },
          },
        },
        {
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: '"a"}' },
          },
        },
        { event: 'message_delta', data: { type: 'message_delta', usage: { output_tokens: 42 } } },
      ]),
    );
    expect(collector.finish()).toEqual({
      responseId: 'msg_1',
      model: 'claude',
      usage: { input: 20, output: 42, cacheRead: 5, cacheWrite: 0, metadata: { cache_read_input: 5 } },
      toolCalls: [{ id: 'toolu_1', name: 'read_file', input: '{"path":"a"}' }],
      error: null,
    });
  });

  it('OpenAI responses: the completed event carries the whole response', () => {
    const collector = new ResponseCollector('responses', true);
    collector.push(
      sse([
        { event: 'response.created', data: { type: 'response.created', response: { id: 'resp_1' } } },
        {
          event: 'response.completed',
          data: {
            type: 'response.completed',
            response: { id: 'resp_1', model: 'o4', output: [], usage: { input_tokens: 3, output_tokens: 4 } },
          },
        },
      ]),
    );
    const facts = collector.finish();
    expect(facts.responseId).toBe('resp_1');
    expect(facts.usage).toEqual({ input: 3, output: 4, cacheRead: 0, cacheWrite: 0, metadata: {} });
  });

  it('a JSON body is read whole; one that does not parse gives empty facts', () => {
    const json = new ResponseCollector('chat_completions', false);
    json.push(Buffer.from('{"id":"c2","usage":{"prompt_tokens":1,'));
    json.push(Buffer.from('"completion_tokens":2}}'));
    expect(json.finish().usage).toEqual({ input: 1, output: 2, cacheRead: 0, cacheWrite: 0, metadata: {} });
    const broken = new ResponseCollector('messages', false);
    broken.push(Buffer.from('<html>bad gateway'));
    expect(broken.finish()).toEqual({ responseId: '', model: null, usage: null, toolCalls: [], error: null });
  });
});

describe('AI gateway provider wire: clients and key hints', () => {
  it.each([
    ['claude-cli/1.0.3 (external, cli)', 'claude-code'],
    ['GitHub-Copilot-CLI copilot-cli/0.1', 'copilot-cli'],
    ['copilot/1.2', 'copilot'],
    ['devplane-chats', 'devplane-chat'],
    ['curl/8.0', null],
    [undefined, null],
  ])('%s is %s', (agent, client) => {
    expect(clientFromUserAgent(agent)).toBe(client);
  });

  it('masks a key: first and last 4 characters of long keys, stars for short ones', () => {
    expect(maskKey('sk-abcdefghijklmnop')).toBe('sk-a...mnop');
    expect(maskKey('short')).toBe('*****');
    expect(maskKey('ab')).toBe('****');
  });
});
