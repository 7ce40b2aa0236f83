// Package otelsetup starts OpenTelemetry tracing in Bridle's programs when
// the standard variables ask for it: spans of the llm, agent and mcp
// packages are then exported over OTLP/HTTP. The libraries use only the
// OpenTelemetry API; the SDK and the exporter live here, in the programs.
package otelsetup

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// flushTimeout bounds the wait for the last spans to leave when the
// program ends.
const flushTimeout = 5 * time.Second

// Enabled reports whether getenv asks for traces: an OTLP endpoint is set
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), the
// SDK is not disabled (OTEL_SDK_DISABLED), and OTEL_TRACES_EXPORTER is not
// "none".
func Enabled(getenv func(string) string) bool {
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	return !strings.EqualFold(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")), "none")
}

// Start turns tracing on when [Enabled] says so: it sets the global tracer
// provider, exporting in batches over OTLP/HTTP as the OTEL_EXPORTER_OTLP_*
// variables say (endpoint, headers, timeout, compression), with the
// resource of OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME over service
// and the program's version, and the W3C trace context propagator. It
// returns the function that sends the last spans and stops, to call before
// the program exits; with tracing off it does nothing. A configuration it
// cannot follow is reported on stderr, and the program runs untraced.
func Start(ctx context.Context, service string, stderr io.Writer) (stop func()) {
	stop = func() {}
	if !Enabled(os.Getenv) {
		return stop
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		p := strings.TrimSpace(os.Getenv(v))
		if p == "" {
			continue
		}
		if p != "http/protobuf" {
			fmt.Fprintf(stderr, "%s: tracing is off: %s=%s is not supported; set it to http/protobuf\n", service, v, p)
			return stop
		}
		break
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "%s: tracing is off: %v\n", service, err)
		return stop
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(
			attribute.String("service.name", service),
			attribute.String("service.version", version()),
		),
		resource.WithFromEnv(),
		resource.WithTelemetrySDK(),
	)
	if err != nil {
		fmt.Fprintf(stderr, "%s: tracing: the resource is partly set: %v\n", service, err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			fmt.Fprintf(stderr, "%s: tracing: the last spans were not all sent: %v\n", service, err)
		}
	}
}

// Env returns the OTEL_ variables of this process as "NAME=value", for a
// child program of ours (gotools-mcp under agent-cli) to send its spans to
// the same place; OTEL_SERVICE_NAME stays behind, so the child keeps its own
// name. They may hold the collector's credentials
// (OTEL_EXPORTER_OTLP_HEADERS): give them only to programs of this module.
func Env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OTEL_") && !strings.HasPrefix(kv, "OTEL_SERVICE_NAME=") {
			out = append(out, kv)
		}
	}
	return out
}

// version is the main module's version, "(devel)" in a build from source.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
