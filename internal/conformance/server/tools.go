package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/tool"
	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Minimal media, as in the conformance suite's own example servers: a 1×1
// red PNG and a silent WAV.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

func decode(b64 string) []byte {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		panic(err)
	}
	return data
}

// schema2020 exercises JSON Schema 2020-12 keywords that must reach the
// client verbatim.
const schema2020 = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {
				"street": {"type": "string"},
				"city": {"type": "string"}
			}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [
		{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}
	],
	"if": {
		"properties": {"contactMethod": {"const": "phone"}},
		"required": ["contactMethod"]
	},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`

func addTools(s *mcp.Server) {
	s.AddTools(
		tool.Tool{Risk: tool.Read,
			Name:        "test_simple_text",
			Description: "Tests simple text content response",
			Func: func(context.Context, json.RawMessage) (string, error) {
				return "This is a simple text response for testing.", nil
			},
		},
		tool.Tool{Risk: tool.Read,
			Name:        "test_error_handling",
			Description: "Tests error response handling",
			Func: func(context.Context, json.RawMessage) (string, error) {
				return "", errors.New("this tool intentionally returns an error for testing")
			},
		},
		tool.Tool{Risk: tool.Read,
			Name:        "json_schema_2020_12_tool",
			Description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)",
			Schema:      json.RawMessage(schema2020),
			Func: func(_ context.Context, args json.RawMessage) (string, error) {
				return fmt.Sprintf("JSON Schema 2020-12 tool called with: %s", args), nil
			},
		},
		tool.Tool{Risk: tool.Read,
			Name:        "test_x_mcp_header",
			Description: "Tests SEP-2243 Mcp-Param-* server-side validation",
			Schema: json.RawMessage(`{
				"type": "object",
				"properties": {
					"region": {"type": "string", "description": "mirrored into Mcp-Param-Region", "x-mcp-header": "Region"},
					"level": {"type": "integer", "description": "non-mirrored argument"}
				}
			}`),
			Func: func(_ context.Context, args json.RawMessage) (string, error) {
				var in struct {
					Region string `json:"region"`
				}
				if err := json.Unmarshal(args, &in); err != nil {
					return "", err
				}
				return "region=" + in.Region, nil
			},
		},
		tool.Tool{Risk: tool.Read,
			Name:        "test_streaming_elicitation",
			Description: "Streams a plain result; used to verify response streams carry only notifications, never independent JSON-RPC requests (SEP-2575)",
			Func: func(context.Context, json.RawMessage) (string, error) {
				return "stream observed: result frames only, no top-level requests", nil
			},
		},
	)

	// What a tool.Tool cannot say (non-text content, notifications,
	// requests to the client, closing the stream) goes through the SDK.
	raw := s.SDK()
	content := func(name, desc string, c ...sdk.Content) {
		sdk.AddTool(raw, &sdk.Tool{Name: name, Description: desc},
			func(context.Context, *sdk.CallToolRequest, any) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: c}, nil, nil
			})
	}
	content("test_image_content", "Tests image content response",
		&sdk.ImageContent{Data: decode(pngBase64), MIMEType: "image/png"})
	content("test_audio_content", "Tests audio content response",
		&sdk.AudioContent{Data: decode(wavBase64), MIMEType: "audio/wav"})
	content("test_embedded_resource", "Tests embedded resource content response",
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
			URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource",
		}})
	content("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)",
		&sdk.TextContent{Text: "This is text content"},
		&sdk.ImageContent{Data: decode(pngBase64), MIMEType: "image/png"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
			URI: "test://embedded-in-multiple", MIMEType: "text/plain", Text: "This is an embedded resource",
		}})

	sdk.AddTool(raw, &sdk.Tool{Name: "test_tool_with_logging", Description: "Tests tool that emits log messages during execution"}, logging)
	sdk.AddTool(raw, &sdk.Tool{Name: "test_tool_with_progress", Description: "Tests tool that reports progress notifications"}, progress)
	sdk.AddTool(raw, &sdk.Tool{Name: "test_sampling", Description: "Tests server-initiated sampling (LLM completion request)"}, sampling)
	sdk.AddTool(raw, &sdk.Tool{Name: "test_elicitation", Description: "Tests server-initiated elicitation (user input request)"}, elicitation)
	sdk.AddTool(raw, &sdk.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Tests elicitation with default values per SEP-1034"}, elicitDefaults)
	sdk.AddTool(raw, &sdk.Tool{Name: "test_elicitation_sep1330_enums", Description: "Tests elicitation with enum schema improvements per SEP-1330"}, elicitEnums)
	sdk.AddTool(raw, &sdk.Tool{Name: "test_reconnection", Description: "Tests SSE stream disconnection and client reconnection (SEP-1699). Server will close the stream mid-call and send the result after client reconnects."}, reconnection)
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func logging(ctx context.Context, req *sdk.CallToolRequest, _ any) (*sdk.CallToolResult, any, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Data: msg})
	}
	return text("Tool with logging executed successfully"), nil, nil
}

func progress(ctx context.Context, req *sdk.CallToolRequest, _ any) (*sdk.CallToolResult, any, error) {
	token := req.Params.GetProgressToken()
	for _, p := range []float64{0, 50, 100} {
		req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      p,
			Total:         100,
			Message:       fmt.Sprintf("Completed step %.0f of %.0f", p, 100.0),
		})
		time.Sleep(50 * time.Millisecond)
	}
	return text(fmt.Sprint(token)), nil, nil
}

type samplingInput struct {
	Prompt string `json:"prompt" jsonschema:"The prompt to send to the LLM"`
}

func sampling(ctx context.Context, req *sdk.CallToolRequest, in samplingInput) (*sdk.CallToolResult, any, error) {
	res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{
		Messages:  []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: in.Prompt}}},
		MaxTokens: 100,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sampling failed: %w", err)
	}
	answer := "(non-text response)"
	if tc, ok := res.Content.(*sdk.TextContent); ok {
		answer = tc.Text
	}
	return text("LLM response: " + answer), nil, nil
}

type elicitationInput struct {
	Message string `json:"message" jsonschema:"The message to show the user"`
}

func elicitation(ctx context.Context, req *sdk.CallToolRequest, in elicitationInput) (*sdk.CallToolResult, any, error) {
	return elicit(ctx, req, in.Message, &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"username": {Type: "string", Description: "Your preferred username"},
		},
		Required: []string{"username"},
	})
}

func elicitDefaults(ctx context.Context, req *sdk.CallToolRequest, _ any) (*sdk.CallToolResult, any, error) {
	return elicit(ctx, req, "Test defaults for primitives", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
			"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
			"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
			"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
			"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
		},
	})
}

func elicitEnums(ctx context.Context, req *sdk.CallToolRequest, _ any) (*sdk.CallToolResult, any, error) {
	titled := []map[string]any{
		{"const": "value1", "title": "First Option"},
		{"const": "value2", "title": "Second Option"},
		{"const": "value3", "title": "Third Option"},
	}
	options := []string{"option1", "option2", "option3"}
	return elicit(ctx, req, "Test enum schemas", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"untitledSingle": map[string]any{"type": "string", "enum": options},
			"titledSingle":   map[string]any{"type": "string", "oneOf": titled},
			"legacyEnum": map[string]any{
				"type": "string", "enum": []string{"opt1", "opt2", "opt3"},
				"enumNames": []string{"Option One", "Option Two", "Option Three"},
			},
			"untitledMulti": map[string]any{
				"type": "array", "minItems": 1, "maxItems": 3,
				"items": map[string]any{"type": "string", "enum": options},
			},
			"titledMulti": map[string]any{
				"type": "array", "minItems": 1, "maxItems": 3,
				"items": map[string]any{"type": "string", "anyOf": titled},
			},
		},
	})
}

func elicit(ctx context.Context, req *sdk.CallToolRequest, message string, schema any) (*sdk.CallToolResult, any, error) {
	res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: message, RequestedSchema: schema})
	if err != nil {
		return nil, nil, fmt.Errorf("elicitation failed: %w", err)
	}
	return text(fmt.Sprintf("Elicitation result: action=%s, content=%v", res.Action, res.Content)), nil, nil
}

func reconnection(ctx context.Context, req *sdk.CallToolRequest, _ any) (*sdk.CallToolResult, any, error) {
	if req.Extra != nil && req.Extra.CloseSSEStream != nil {
		req.Extra.CloseSSEStream(sdk.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
	}
	time.Sleep(100 * time.Millisecond) // the client reconnects meanwhile
	return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil, nil
}
