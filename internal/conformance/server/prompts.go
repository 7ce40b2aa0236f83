package main

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addPrompts registers the prompt fixtures; package mcp does not model
// prompts, so they go straight to the SDK server.
func addPrompts(s *sdk.Server) {
	user := func(c sdk.Content) *sdk.PromptMessage { return &sdk.PromptMessage{Role: "user", Content: c} }

	s.AddPrompt(&sdk.Prompt{
		Name:        "test_simple_prompt",
		Title:       "Simple Test Prompt",
		Description: "A simple prompt without arguments",
	}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{
			Description: "A simple test prompt",
			Messages:    []*sdk.PromptMessage{user(&sdk.TextContent{Text: "This is a simple prompt for testing."})},
		}, nil
	})

	s.AddPrompt(&sdk.Prompt{
		Name:        "test_prompt_with_arguments",
		Title:       "Prompt With Arguments",
		Description: "A prompt with required arguments",
		Arguments: []*sdk.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		},
	}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		args := req.Params.Arguments
		return &sdk.GetPromptResult{
			Description: "A prompt with arguments",
			Messages: []*sdk.PromptMessage{user(&sdk.TextContent{
				Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"]),
			})},
		}, nil
	})

	s.AddPrompt(&sdk.Prompt{
		Name:        "test_prompt_with_embedded_resource",
		Title:       "Prompt With Embedded Resource",
		Description: "A prompt that includes an embedded resource",
		Arguments: []*sdk.PromptArgument{
			{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
		},
	}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{
			Description: "A prompt with an embedded resource",
			Messages: []*sdk.PromptMessage{
				user(&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
					URI:      req.Params.Arguments["resourceUri"],
					MIMEType: "text/plain",
					Text:     "Embedded resource content for testing.",
				}}),
				user(&sdk.TextContent{Text: "Please process the embedded resource above."}),
			},
		}, nil
	})

	s.AddPrompt(&sdk.Prompt{
		Name:        "test_prompt_with_image",
		Title:       "Prompt With Image",
		Description: "A prompt that includes image content",
	}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{
			Description: "A prompt with an image",
			Messages: []*sdk.PromptMessage{
				user(&sdk.ImageContent{Data: decode(pngBase64), MIMEType: "image/png"}),
				user(&sdk.TextContent{Text: "Please analyze the image above."}),
			},
		}, nil
	})
}
