package otelsetup

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestEnabledFollowsTheStandardVariables(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_SDK_DISABLED": "true"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_TRACES_EXPORTER": "none"}, false},
		{map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
	} {
		if got := Enabled(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %v; want %v", tc.env, got, tc.want)
		}
	}
}

func TestStartRefusesAProtocolItCannotSpeak(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	var stderr bytes.Buffer
	Start(context.Background(), "prog", &stderr)()
	if !strings.Contains(stderr.String(), "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported") {
		t.Errorf("stderr: %q", stderr.String())
	}
}

func TestEnvPassesOnAllButTheServiceName(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
	t.Setenv("OTEL_SERVICE_NAME", "parent")
	env := strings.Join(Env(), "\n")
	if !strings.Contains(env, "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318") || strings.Contains(env, "OTEL_SERVICE_NAME") {
		t.Errorf("Env() = %q", env)
	}
}
