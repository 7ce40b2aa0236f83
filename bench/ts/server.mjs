// The official TypeScript SDK serving one trivial tool, add {a, b}, over
// stdio, or over Streamable HTTP when a port is given:
//
//   node server.mjs            # stdio
//   node server.mjs 8123       # http://127.0.0.1:8123/mcp, stateful sessions
//
// NODE_PATH must point at a node_modules holding @modelcontextprotocol/sdk
// and zod (test.sh installs them under .cache/peers).
import { createRequire } from "node:module";
import http from "node:http";
import path from "node:path";
import { randomUUID } from "node:crypto";

const require = createRequire(path.join(process.env.NODE_PATH || ".", "x.js"));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { isInitializeRequest } = require("@modelcontextprotocol/sdk/types.js");
const { z } = require("zod");

function newServer() {
  const server = new McpServer({ name: "bench-ts", version: "1" });
  server.registerTool(
    "add",
    { description: "adds two numbers", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  return server;
}

const port = process.argv[2];
if (!port) {
  await newServer().connect(new StdioServerTransport());
} else {
  // Stateful sessions, as the Go servers keep: one server and transport
  // per Mcp-Session-Id, created by the initialize request.
  const sessions = new Map();
  http
    .createServer(async (req, res) => {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
      const id = req.headers["mcp-session-id"];
      let transport = id && sessions.get(id);
      if (!transport) {
        if (id || !isInitializeRequest(body)) {
          res.writeHead(404, { "content-type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "session not found" } }));
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (sid) => sessions.set(sid, transport),
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await newServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    })
    .listen(Number(port), "127.0.0.1");
}
