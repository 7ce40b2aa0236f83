// Package mcp serves [tool.Tool] values over the Model Context Protocol and
// connects to other people's MCP servers, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// A [Server] has a name, a version, instructions for the model, tools and
// text resources. It serves them over stdio ([Server.ServeStdio],
// [Server.Run]) or over Streamable HTTP ([Server.ListenAndServe],
// [Server.Serve], [Server.HTTPHandler]: loopback by default, Origin checked
// against DNS rebinding, an optional bearer token, a body size limit,
// sessions bounded in time and number, both eras of the protocol on one
// endpoint, graceful shutdown). Every message is served by the SDK's own
// session, through its Transport and Connection seams. Package mcp/mcptest
// answers one JSON-RPC line at a time in the same process, which makes a
// server testable message by message.
//
// Constructors take what they cannot do without as values ([Command],
// [HTTP]) and optional settings as a pointer to an options struct
// ([ServerOptions], [ClientOptions], [HTTPOptions]) whose nil means the
// defaults.
//
// A tool's risk becomes its annotations: [tool.Read] is announced with
// readOnlyHint true; [tool.Write] with readOnlyHint false, destructiveHint
// true and openWorldHint false; [tool.Exec] with readOnlyHint false and the
// protocol's defaults for the rest. A tool's string result is sent as text
// content; its error is sent as a failed call (isError true) whose text is
// the error's message, so the model can read it and go on.
//
// A [Session] is the other side: it connects to a server started as a
// child process ([ConnectCommand]), reached over Streamable HTTP
// ([ConnectHTTP]) or running in the same process ([ConnectInProcess]), and
// hands back the server's tools as [tool.Tool] values whose risk comes from
// their annotations.
//
// What this package does not model (prompts, resource templates,
// completion, sampling, elicitation, logging, subscriptions) is reachable
// through [Server.SDK] and [ServerOptions.SDKOptions].
package mcp
