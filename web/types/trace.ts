// Type test of the tracing options: the real OpenTelemetry SDK's tracer (a
// BasicTracerProvider's) is a Tracer of agentwasm.d.ts, though the
// declarations import nothing of OpenTelemetry; what is not a tracer, or an
// unknown propagation, does not compile.
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { trace } from '@opentelemetry/api';
import type { Runtime, SessionOptions, PortOptions, Tracer, TraceSpan } from '../agentwasm.mjs';

export function traced(runtime: Runtime): void {
  const tracer = new BasicTracerProvider().getTracer('app');
  const options: SessionOptions = { tracer, traceContent: true, tracePropagation: 'all' };
  runtime.createSession(options);
  const apiTracer: Tracer = trace.getTracer('app');
  const portOptions: PortOptions = { tracer: apiTracer };
  runtime.createPort({ id: 'g', pages: [], actions: [] }, portOptions);
  const span: TraceSpan = tracer.startSpan('x');
  span.end();
  // @ts-expect-error a tracer has startSpan
  runtime.createSession({ tracer: {} });
  // @ts-expect-error the propagations are same-origin, all and none
  runtime.createSession({ tracePropagation: 'everywhere' });
  // @ts-expect-error traceContent is a boolean
  runtime.createSession({ traceContent: 'yes' });
}
