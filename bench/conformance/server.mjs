#!/usr/bin/env node
// A small MCP server with the tools, resources and prompts that the server scenarios of
// @modelcontextprotocol/conformance call (test_simple_text, test://static-text,
// test_simple_prompt, ...), written for this bench from the requirements each scenario prints.
// Built on the official TypeScript SDK (@modelcontextprotocol/sdk, pinned in package.json).
//
//   node server.mjs --stdio [--log FILE]             MCP over stdio (what cyclops fronts)
//   node server.mjs --port N [--log FILE]            Streamable HTTP at http://127.0.0.1:N/mcp
//
// --log appends one JSON line per initialize seen: the protocol version the client asked for
// and the one this server answered, so the bench can say which versions the scenarios use.

import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const LOG = flag('--log');
const log = (record) => {
  const line = JSON.stringify({ t: new Date().toISOString(), ...record });
  if (LOG) appendFileSync(LOG, line + '\n');
  else process.stderr.write(line + '\n');
};

// A 1x1 PNG and a WAV header with no samples: the smallest valid payloads of each kind.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });
const noArgs = { type: 'object', properties: {} };

const TOOLS = [
  { name: 'test_simple_text', description: 'Returns one text block', inputSchema: noArgs },
  { name: 'test_image_content', description: 'Returns a PNG image', inputSchema: noArgs },
  { name: 'test_audio_content', description: 'Returns a WAV clip', inputSchema: noArgs },
  { name: 'test_embedded_resource', description: 'Returns an embedded resource', inputSchema: noArgs },
  { name: 'test_multiple_content_types', description: 'Returns text, image and resource', inputSchema: noArgs },
  { name: 'test_tool_with_logging', description: 'Logs three messages while it runs', inputSchema: noArgs },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100', inputSchema: noArgs },
  { name: 'test_error_handling', description: 'Always fails with isError', inputSchema: noArgs },
  { name: 'test_reconnection', description: 'Closes its SSE stream mid-call (SEP-1699)', inputSchema: noArgs },
  {
    name: 'test_sampling',
    description: 'Asks the client for an LLM completion',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user for a username and an email',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  },
  { name: 'test_elicitation_sep1034_defaults', description: 'Elicits with defaults (SEP-1034)', inputSchema: noArgs },
  { name: 'test_elicitation_sep1330_enums', description: 'Elicits the five enum forms (SEP-1330)', inputSchema: noArgs },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  },
];

const ELICIT_SEP1034 = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Name', default: 'John Doe' },
    age: { type: 'integer', description: 'Age', default: 30 },
    score: { type: 'number', description: 'Score', default: 95.5 },
    status: { type: 'string', description: 'Status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verified', default: true },
  },
};
const ELICIT_SEP1330 = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
      ],
    },
    legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
        ],
      },
    },
  },
};

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'Static text', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'Static PNG', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'Subscribable', mimeType: 'text/plain' },
];
const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two arguments',
    arguments: [
      { name: 'arg1', description: 'First argument', required: true },
      { name: 'arg2', description: 'Second argument', required: true },
    ],
  },
  {
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource',
    arguments: [{ name: 'resourceUri', description: 'URI to embed', required: true }],
  },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];

/** One MCP server per client connection; `closeStream(requestId)` exists only over HTTP. */
function makeServer(closeStream) {
  const server = new Server(
    { name: 'cyclops-bench-conformance-server', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
    },
  );
  const subscriptions = new Set();

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: a = {} } = request.params;
    const message = (data) =>
      extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
    switch (name) {
      case 'test_simple_text':
        return text('This is a simple text response for testing.');
      case 'test_image_content':
        return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] };
      case 'test_audio_content':
        return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
      case 'test_embedded_resource':
        return {
          content: [
            {
              type: 'resource',
              resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
            },
          ],
        };
      case 'test_multiple_content_types':
        return {
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: PNG, mimeType: 'image/png' },
            {
              type: 'resource',
              resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
            },
          ],
        };
      case 'test_tool_with_logging':
        await message('Tool execution started');
        await sleep(50);
        await message('Tool processing data');
        await sleep(50);
        await message('Tool execution completed');
        return text('Tool with logging executed successfully');
      case 'test_tool_with_progress': {
        const token = extra._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (token !== undefined)
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
          if (progress < 100) await sleep(50);
        }
        return text(`Progress reported with token ${String(token)}`);
      }
      case 'test_error_handling':
        return { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] };
      case 'test_reconnection':
        if (closeStream) closeStream(extra.requestId);
        await sleep(100);
        return text('Reconnection test completed');
      case 'test_sampling': {
        const r = await extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: { messages: [{ role: 'user', content: { type: 'text', text: String(a.prompt ?? '') } }], maxTokens: 100 },
          },
          CreateMessageResultSchema,
        );
        return text(`LLM response: ${r.content?.text ?? JSON.stringify(r.content)}`);
      }
      case 'test_elicitation': {
        const r = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: String(a.message ?? ''),
              requestedSchema: {
                type: 'object',
                properties: {
                  username: { type: 'string', description: "User's response" },
                  email: { type: 'string', description: "User's email address" },
                },
                required: ['username', 'email'],
              },
            },
          },
          ElicitResultSchema,
        );
        return text(`User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
      }
      case 'test_elicitation_sep1034_defaults':
      case 'test_elicitation_sep1330_enums': {
        const schema = name === 'test_elicitation_sep1034_defaults' ? ELICIT_SEP1034 : ELICIT_SEP1330;
        const r = await extra.sendRequest(
          { method: 'elicitation/create', params: { message: 'Please fill in the form', requestedSchema: schema } },
          ElicitResultSchema,
        );
        return text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
      }
      case 'json_schema_2020_12_tool':
        return text(`called with ${JSON.stringify(a)}`);
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      { uriTemplate: 'test://template/{id}/data', name: 'template', description: 'Data by id', mimeType: 'application/json' },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    if (uri === 'test://static-text')
      return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
    if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG }] };
    if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }] };
    const m = TEMPLATE.exec(uri);
    if (m)
      return {
        contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: m[1], templateTest: true, data: `Data for ID: ${m[1]}` }) }],
      };
    throw new McpError(-32002, `Resource not found: ${uri}`);
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const { name, arguments: a = {} } = request.params;
    const user = (content) => ({ role: 'user', content });
    switch (name) {
      case 'test_simple_prompt':
        return { messages: [user({ type: 'text', text: 'This is a simple prompt for testing.' })] };
      case 'test_prompt_with_arguments':
        return { messages: [user({ type: 'text', text: `Prompt with arguments: arg1='${a.arg1}', arg2='${a.arg2}'` })] };
      case 'test_prompt_with_embedded_resource':
        return {
          messages: [
            user({ type: 'resource', resource: { uri: a.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } }),
            user({ type: 'text', text: 'Please process the embedded resource above.' }),
          ],
        };
      case 'test_prompt_with_image':
        return {
          messages: [
            user({ type: 'image', data: PNG, mimeType: 'image/png' }),
            user({ type: 'text', text: 'Please analyze the image above.' }),
          ],
        };
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    }
  });

  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const words = ['paris', 'park', 'party', 'test', 'testing'];
    const values = words.filter((w) => w.startsWith(request.params.argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  server.setRequestHandler(SetLevelRequestSchema, async () => ({}));
  return server;
}

/** Logs the protocol version asked for in `initialize`, the one answered, and each new method. */
function watchVersions(transport, via) {
  const asked = new Map();
  const seen = new Set();
  const onmessage = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    if (msg.method === 'initialize') asked.set(msg.id, msg.params?.protocolVersion);
    else if (msg.method && !seen.has(msg.method)) {
      seen.add(msg.method);
      log({ via, event: 'method', method: msg.method });
    }
    onmessage?.(msg, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (msg, options) => {
    if (msg.id !== undefined && asked.has(msg.id)) {
      log({ via, event: 'initialize', requested: asked.get(msg.id), answered: msg.result?.protocolVersion ?? null });
      asked.delete(msg.id);
    }
    return send(msg, options);
  };
}

async function serveStdio() {
  const transport = new StdioServerTransport();
  await makeServer(undefined).connect(transport);
  watchVersions(transport, 'stdio');
}

/** In-memory event store, so that POST streams are resumable (SEP-1699). */
function eventStore() {
  const events = [];
  return {
    async storeEvent(streamId, message) {
      const eventId = `${streamId}_${String(events.length).padStart(8, '0')}`;
      events.push({ eventId, streamId, message });
      return eventId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const last = events.find((e) => e.eventId === lastEventId);
      if (!last) throw new Error(`unknown event id ${lastEventId}`);
      for (const e of events)
        if (e.streamId === last.streamId && e.eventId > lastEventId && Object.keys(e.message).length) await send(e.eventId, e.message);
      return last.streamId;
    },
  };
}

async function serveHttp(port) {
  const app = createMcpExpressApp({ host: '127.0.0.1' }); // JSON body parsing + Host check (DNS rebinding)
  const sessions = new Map();
  const badSession = (res) =>
    res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Invalid or missing session ID' }, id: null });

  app.post('/mcp', async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      if (sid || req.body?.method !== 'initialize') return badSession(res);
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: eventStore(),
        retryInterval: 1000,
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      const t = transport;
      await makeServer((requestId) => t.closeSSEStream(requestId)).connect(transport);
      watchVersions(transport, 'http');
    }
    await transport.handleRequest(req, res, req.body);
  });
  const existing = async (req, res) => {
    const transport = sessions.get(req.headers['mcp-session-id']);
    if (!transport) return badSession(res);
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', existing);
  app.delete('/mcp', existing);
  await new Promise((resolve) => app.listen(port, '127.0.0.1', resolve));
  process.stderr.write(`conformance server on http://127.0.0.1:${port}/mcp\n`);
}

if (args.includes('--stdio')) await serveStdio();
else await serveHttp(Number(flag('--port') ?? 3000));
