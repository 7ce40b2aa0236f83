package agent_test

import (
	"context"
	"fmt"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
	"github.com/bridle-dev/bridle/tool"
)

type weatherArgs struct {
	City string `json:"city" jsonschema:"the city to look up"`
}

func Example() {
	// A scripted model stands in for a real one: it asks for the weather,
	// then quotes what the tool said.
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		if res := r.LastToolResults(); len(res) > 0 {
			return llmtest.Reply{Text: "In Lisbon: " + res[0].Text + "."}
		}
		return llmtest.Reply{Calls: []llmtest.Call{{Name: "weather", Args: `{"city":"Lisbon"}`}}}
	})
	defer srv.Close()
	client, err := llm.New(srv.Config(llm.Anthropic))
	if err != nil {
		fmt.Println(err)
		return
	}

	a := agent.New(client, &agent.Options{
		System: "Answer in one sentence.",
		OnEvent: func(e agent.Event) {
			if e.Type == agent.EventCalling {
				fmt.Printf("calling %s %s (%s)\n", e.Call.Name, e.Call.Args, e.Call.Risk)
			}
		},
	})
	a.Add(tool.New("weather", "tells the weather in a city", tool.Read,
		func(ctx context.Context, in weatherArgs) (string, error) {
			return "sunny, 21 °C", nil
		}))

	out, err := a.Run(context.Background(), "What is the weather in Lisbon?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Stop, out.Steps)
	fmt.Println(out.Text)
	// Output:
	// calling weather {"city":"Lisbon"} (read)
	// done 2
	// In Lisbon: sunny, 21 °C.
}

func ExampleAutonomy() {
	for _, s := range []string{"read-only", "ask", "edits", "auto"} {
		a, _ := agent.ParseAutonomy(s)
		fmt.Println(a)
	}
	_, err := agent.ParseAutonomy("yolo")
	fmt.Println(err)
	// Output:
	// read-only
	// ask
	// edits
	// auto
	// unknown autonomy "yolo": use read-only, ask, edits or auto
}
