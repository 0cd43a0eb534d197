// protocol.ts: wire types of inductor-ls's custom LSP methods, as the server
// sends them (see the server interface in README.md). Nothing here is a VS Code
// type; the features convert at their edge.

import { NotificationType, RequestType } from 'vscode-languageclient';

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


// `inductor/hotLines` `{limit?, uri?}` → the per-line GPU time table, hottest
// first (see server/HotLines.cpp). `label` is what lenses show ("133 µs/step",
// "400 µs total"); `basisText` says whether times are per step or totals.
export interface HotLine {
  location: { uri: string; range: { start: { line: number; character: number }; end: { line: number; character: number } } };
  path: string;
  line: number; // 1-based
  code: string;
  ns: number;
  perStepNs: number;
  percent: number;
  label: string;
  launches: number;
  byKind: Record<string, number>;
}
export interface HotLinesResult {
  basis: 'perStep' | 'total' | 'none';
  basisText: string;
  steps: string[];
  totalNs: number;
  eagerNs: number;
  caveats: string[];
  profiles: string[];
  lines: HotLine[];
}
export const hotLinesRequest = new RequestType<{ limit?: number; uri?: string }, HotLinesResult, void>(
  'inductor/hotLines',
);

// Client command of the server's printer code actions: one argument
// {title, env: {NAME: value}, shell: "NAME=value ...", explanation}. The
// client shows it for the user to copy; it never runs anything.
export interface PrinterEnv {
  title: string;
  env: Record<string, string>;
  shell: string;
  explanation: string;
}
export const showPrinterEnvCommand = 'inductor.showPrinterEnv';
