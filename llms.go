// Package bridle is the root of the Bridle module: a Go toolkit for
// programs that talk to a language model, use tools, and ask a person
// before they change anything. The work is done in its packages: llm (one
// client for many model providers), llm/llmtest (a scripted model server
// for tests), tool (the one tool definition), mcp (MCP client and server)
// and agent (the loop).
//
// This package holds only the repository's llms.txt, the distilled context
// a coding assistant needs to write code against Bridle, so that programs
// such as gotools-mcp can serve it.
package bridle

import _ "embed"

//go:embed llms.txt
var llmsTxt string

// LLMsTxt returns the text of the repository's llms.txt: what each package
// is for, the canonical forms, the mistakes models make with Bridle, and
// the exact error messages it produces.
func LLMsTxt() string { return llmsTxt }
