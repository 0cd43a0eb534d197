// protocol.ts: wire types of inductor-ls's custom LSP methods, as the server
// sends them (see the server interface in README.md). Nothing here is a VS Code
// type; the features convert at their edge.

import { type Location, NotificationType, RequestType } from 'vscode-languageclient';

// `inductor/status` request `{}` → StatusResult; the server also sends it as a
// notification whenever the index changes.
export interface StatusResult {
  indexing: boolean;
  traces: number;
  compiles: number;
  kernels: number;
  launches: number;
  errors: number;
}
export const statusRequest = new RequestType<object, StatusResult, void>('inductor/status');
export const statusNotification = new NotificationType<Partial<StatusResult>>('inductor/status');

// `inductor/artifactContent` `{uri}` → text of an artifact that exists only
// inside a trace log (URI scheme `inductor-trace:`).
export interface ArtifactContentParams {
  uri: string;
}
export interface ArtifactContentResult {
  text: string;
  languageId: 'python' | 'cpp' | string;
}
export const artifactContentRequest = new RequestType<
  ArtifactContentParams,
  ArtifactContentResult | null,
  void
>('inductor/artifactContent');

// `inductor/listArtifacts` `{}` → every artifact of the index.
export type ArtifactKind = 'outputCode' | 'wrapperCode' | 'kernel' | 'graph';
export interface Artifact {
  uri: string;
  title: string;
  // Null for a kernel source file, which the Inductor cache shares between compiles.
  compileId: string | null;
  rank?: number | null;
  graphKind?: string | null;
  kind: ArtifactKind;
  languageId: string;
}
export const listArtifactsRequest = new RequestType<object, Artifact[], void>(
  'inductor/listArtifacts',
);

// Server command (workspace/executeCommand) that rebuilds the index.
export const reindexCommand = 'inductor.reindex';

// Client command carried by every code lens: arguments are
// [uri: string, position: lsp.Position, locations: lsp.Location[]],
// the shape of `editor.action.showReferences`. The client implements it.
export const showLocationsCommand = 'inductor.showLocations';

// URI scheme of artifacts that exist only inside a trace log.
export const traceScheme = 'inductor-trace';


// `inductor/compiles` `{uri?}` → every compiled frame, its compiles (with or
// without output code) and what happened in each (server/Compiles.cpp). With
// `uri`, only the frames defined or diagnosed in that file.
export interface CompileEvent {
  kind: 'graphBreak' | 'recompile' | 'failure' | 'specialization' | string;
  severity: number; // LSP DiagnosticSeverity.
  message: string;
  code: string;
  location: Location | null;
}
export interface FrameCompile {
  compileId: string;
  label: string;
  rank: number | null;
  status: 'ok' | 'graph break' | 'recompiled' | 'failed' | 'not compiled' | string;
  summary: string;
  attempts: { attempt: number; restartReason: string }[];
  seconds: number | null;
  backwardSeconds: number | null;
  runtimeSeconds: number | null;
  guardCount: number | null;
  shapeEnvGuardCount: number | null;
  graphOpCount: number | null;
  cache: { fxGraph: string | null; aotAutograd: string | null };
  failType: string | null;
  failReason: string | null;
  recompileReasons: string[];
  events: CompileEvent[];
  artifacts: { uri: string; title: string }[];
  trace: { uri: string; line: number } | null;
}
export interface CompiledFrame {
  function: string;
  frameId: number | null;
  compiledAutogradId: number | null;
  rank: number | null;
  location: Location | null; // The def line.
  resumeOf: number | null; // Index of the frame whose graph break this frame resumes after.
  status: string;
  summary: string;
  compiles: FrameCompile[];
}
export interface CompilesResult {
  frames: CompiledFrame[];
  summary: { compiles?: number; frames?: number; graphBreaks?: number; recompiles?: number; failures?: number };
}
export const compilesRequest = new RequestType<{ uri?: string }, CompilesResult, void>('inductor/compiles');

// Client command of the code lens on a compiled function's def line:
// [uri, position, {function, line, compileIds}]. Reveals the function's frames
// in the Compiled Frames view.
export const showCompilesCommand = 'inductor.showCompiles';
