package llm

// maxBreakpoints is the most cache_control marks Anthropic accepts.
const maxBreakpoints = 4

// markCache sets Anthropic prompt-cache breakpoints. The cached prefix runs
// tools → system → messages, so marking the last tool, the system prompt
// and the latest user turn caches everything up to the new question. The
// fourth mark goes on the user turn before, so the previous request's cache
// entry is found however many blocks the last exchange added.
func markCache(tools []*antTool, system []*antText, msgs []antMessage) {
	n := 0
	if len(tools) > 0 {
		tools[len(tools)-1].CacheControl = ephemeral
		n++
	}
	if len(system) > 0 {
		system[len(system)-1].CacheControl = ephemeral
		n++
	}
	turns := 0
	for i := len(msgs) - 1; i >= 0 && turns < 2 && n < maxBreakpoints; i-- {
		if msgs[i].Role == string(User) && markLast(msgs[i].Content) {
			turns++
			n++
		}
	}
}

// markLast marks the last block that can carry a breakpoint.
func markLast(blocks []antBlock) bool {
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].markCache() {
			return true
		}
	}
	return false
}
