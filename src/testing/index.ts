// `agent-verdict/testing`: helpers for testing eval code without keys (fake judge server).
export {}
