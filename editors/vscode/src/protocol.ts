// protocol.ts: wire types of inductor-ls's custom LSP methods, as the server
// sends them (see the server interface in README.md). Nothing here is a VS Code
// type; the features convert at their edge.
//
// Held to protocol/inductor-protocol.json, the one description of the custom
// protocol, by test/fast/protocol.test.mjs: each of its `$defs` is a type here
// of the same name, with the same fields, optionality and types, each method
// has its RequestType/NotificationType, and each of its `commands` is a key of
// ClientCommands or ServerCommands (by its side) with the arguments described.
// Change both together.

import {
  type ExecuteCommandParams,
  type Location,
  NotificationType,
  type Position,
  type Range,
  RequestType,
  type TextDocumentIdentifier,
} from 'vscode-languageclient';

// LSP's own types, used as the description's Position, Range, Location and
// TextDocumentIdentifier.
export type { Location, Position, Range, TextDocumentIdentifier };

// Params the server ignores (clients send `{}`), and the empty object.
export type NoParams = Record<string, never>;
export type EmptyObject = Record<string, never>;

// initialize's `initializationOptions` (pinned server interface). A field that
// is absent lets the server choose: no `traceDirs` means "discover under the
// workspace folders". The server also takes one string where a list is
// expected.
export interface InitializationOptions {
  traceDirs?: string | string[];
  pathMappings?: PathMapping[];
  libraryPaths?: string | string[];
  pythonPath?: string | null;
  profiles?: string | string[];
  runLogs?: string | string[];
  // false in an untrusted workspace (Restricted Mode): the server runs no
  // interpreter at all. Absent means trusted.
  trusted?: boolean;
  // The current run ("latest" by default, "previous", a run id or a path of
  // one of its logs) and the run compared with ("previous" by default,
  // "none", a run id or a path).
  run?: string | null;
  baseline?: string | null;
  // Triton cache folders outside the traces (TRITON_CACHE_DIR, an Inductor
  // cache's triton/): kernels' IR, PTX and resources are read there too.
  tritonCacheDirs?: string | string[];
}
export interface PathMapping {
  from: string;
  to: string;
}

// `inductor/status` request `{}` → StatusResult; the server also sends it as a
// notification whenever the index changes.
export interface StatusResult {
  indexing: boolean;
  // An index is being served (false only before the first build ends).
  ready: boolean;
  traces: number;
  compiles: number;
  kernels: number;
  launches: number;
  errors: number;
  userLines: number;
  // The Python environment whose import roots resolve package paths.
  python: PythonStatus;
  // While indexing: how far, and what is being done.
  progress: Progress | null;
  // Requests waiting for the first index.
  waitingRequests: number;
  // Trace inputs changed and no build has started for them yet: the index
  // served may be behind the files.
  changesPending: boolean;
  // Indexes served so far this session: a new value is a new index (the
  // same index is reported again, e.g. once the Python environment answers).
  builds: number;
  // What the user should know (no trace, missing sources, corrupted
  // records), each already shown once as a message.
  notices: Notice[];
  // Sent once an index exists (`ready`), from here to `counts`.
  launchesWithOrigin?: number;
  corruptedRecords?: number;
  // The work of the last build (an incremental one reads what was appended).
  traceBytes?: number;
  traceBytesRead?: number;
  compilesAnalysed?: number;
  // Compile health: Dynamo compiles and their events.
  frameCompiles?: number;
  graphBreaks?: number;
  recompiles?: number;
  compileFailures?: number;
  // Launches whose user source files are not on this machine.
  launchesWithMissingSource?: number;
  firstMissingSource?: string | null;
  // Profiler traces and printer run logs read.
  profiles?: number;
  runLogs?: number;
  // The compile-health diagnostics published (what the Problems panel lists), and
  // where the ranks of the run disagree (inductor/ranks, cache outcomes left out).
  problemLines?: number;
  rankDivergences?: number;
  // What every view counts (index/model/Counts.h): what the status bar shows. The
  // top-level `traces`/`compiles`/`kernels`/`launches` are the same numbers.
  counts?: Counts;
  // The run served (its id, its UTC start time), how many others the traces
  // hold, and the baseline run (null when none or not built yet).
  run?: string | null;
  otherRuns?: number;
  baseline?: string | null;
}
// The one definition of what is counted, as `explain` and the Compiled Frames
// view give it: compiles = Dynamo compiles (frame_id/frame_compile_id, ranks
// together), graphs = output codes, kernels/launches as the lenses count them,
// problems = graph breaks + recompiles + failures.
export interface Counts {
  traces: number;
  compiles: number;
  graphs: number;
  frames: number;
  kernels: number;
  launches: number;
  launchesWithOrigin: number;
  problems: number;
  graphBreaks: number;
  recompiles: number;
  failures: number;
  ranks: number;
}
export interface Progress {
  percentage: number;
  message: string;
}
export interface PythonStatus {
  interpreter: string; // Empty when none was found (or none may run).
  source: string;
  environments: PythonEnvironment[]; // Read without running them.
  trusted: boolean;
  importRoots: string[];
  error: string;
  kept: boolean; // An earlier session's answer, not asked again yet.
}
export interface PythonEnvironment {
  prefix: string;
  source: string;
  importRoots: string[];
}
export interface Notice {
  kind: 'noTrace' | 'missingSources' | 'noProvenance' | 'corruptedRecords';
  // LSP MessageType: 1 error, 2 warning, 3 info, 4 log.
  type: 1 | 2 | 3 | 4;
  message: string;
}
export const statusRequest = new RequestType<NoParams, StatusResult, void>('inductor/status');
export const statusNotification = new NotificationType<StatusResult>('inductor/status');

// `inductor/artifactContent` `{uri}` → text of an artifact that exists only
// inside a trace log (URI scheme `inductor-trace:`).
export interface ArtifactContentParams {
  uri: string;
}
export interface ArtifactContentResult {
  text: string;
  languageId: 'python' | 'cpp';
}
export const artifactContentRequest = new RequestType<ArtifactContentParams, ArtifactContentResult, void>(
  'inductor/artifactContent',
);

// `inductor/listArtifacts` `{}` → every artifact of the index.
export type ArtifactKind = 'outputCode' | 'wrapperCode' | 'kernel' | 'graph';
export interface Artifact {
  uri: string;
  title: string;
  // What pickers show: `[0/0] backward · output_code.py`.
  label: string;
  // Null for a kernel source file, which the Inductor cache shares between compiles.
  compileId: string | null;
  // The compile's label (`[0/0] backward`, `[0/0] forward rank 1`) and index.
  compile: string | null;
  compileIndex: number | null;
  rank: number | null;
  graphKind: 'forward' | 'backward' | 'inference' | 'unknown' | 'aot' | null;
  graphName: string | null;
  // The TORCH_TRACE log the compile came from; null for compiles found only in files.
  trace: string | null;
  kind: ArtifactKind;
  languageId: 'python' | 'cpp';
}
export const listArtifactsRequest = new RequestType<NoParams, Artifact[], void>(
  'inductor/listArtifacts',
);

// Server command (workspace/executeCommand) that rebuilds the index.
export const reindexCommand = 'inductor.reindex';

// Client command carried by the code lenses of generated code and graph
// dumps: arguments are ShowLocationsArguments [uri: string, position:
// lsp.Position, locations: lsp.Location[]], the shape of
// `editor.action.showReferences`. The client implements it.
export const showLocationsCommand = 'inductor.showLocations';

// Client command carried by the kernel lens of a model line: arguments are
// ShowLaunchSitesArguments [uri: string, position: lsp.Position], without
// locations (a line of a many-compile trace has thousands); the client asks
// inductor/launchSites for them and shows them as inductor.showLocations does.
export const showLaunchSitesCommand = 'inductor.showLaunchSites';

// The launch sites a model line's lens counts (one per site in each compile,
// ranks merged), at a position of the document as it is now; [] elsewhere.
export interface LaunchSitesParams {
  textDocument: TextDocumentIdentifier;
  position: Position;
}
export const launchSitesRequest = new RequestType<LaunchSitesParams, Location[], void>('inductor/launchSites');

// From a line of a Triton kernel's source (output code, the kernel's file, a
// log-only document): its lines in each IR stage of the kernel's Triton cache
// entry ('ttir', 'ttgir', 'llir', 'ptx', in that order); [] elsewhere.
export interface LoweredStage {
  stage: string;
  // The first 4,000 lines; `more` counts those past them (absent when none).
  locations: Location[];
  more?: number;
  // Why the stage's file was not read; `locations` is then empty.
  note?: string;
}
export const loweredRequest = new RequestType<LaunchSitesParams, LoweredStage[], void>('inductor/lowered');

// Client command: [uri: string, line: number (1-based)] → open the document
// at that line. client.ts turns hover links VS Code will not follow
// (`inductor-trace:` ones) into links to it.
export const openLocationCommand = 'inductorLs.openLocation';

// URI scheme of artifacts that exist only inside a trace log.
export const traceScheme = 'inductor-trace';


// `inductor/compiles` `{uri?}` → every compiled frame, its compiles (with or
// without output code) and what happened in each (server/features/Compiles.cpp). With
// `uri`, only the frames defined or diagnosed in that file.
export type CompileStatus = 'ok' | 'graph break' | 'recompiled' | 'failed' | 'not compiled';
export interface CompileEvent {
  kind: 'graph break' | 'recompile' | 'failure' | 'specialization';
  severity: 1 | 2 | 3 | 4; // LSP DiagnosticSeverity.
  message: string;
  code: string;
  location: Location | null;
}
export interface CompileAttempt {
  attempt: number;
  restartReason: string;
}
// FX graph and AOT autograd cache outcomes; null when the trace says nothing.
export type CacheOutcome = 'hit' | 'miss' | 'bypass' | null;
export interface CacheOutcomes {
  fxGraph: CacheOutcome;
  aotAutograd: CacheOutcome;
}
export interface ArtifactRef {
  uri: string;
  title: string;
}
// A compile's first record: its log and 0-based line.
export interface TraceRecord {
  uri: string;
  line: number;
}
export interface FrameCompile {
  compileId: string;
  label: string;
  rank: number | null;
  status: CompileStatus;
  summary: string;
  attempts: CompileAttempt[];
  seconds: number | null;
  backwardSeconds: number | null;
  runtimeSeconds: number | null;
  guardCount: number | null;
  shapeEnvGuardCount: number | null;
  graphOpCount: number | null;
  cache: CacheOutcomes;
  failType: string | null;
  failReason: string | null;
  recompileReasons: string[];
  events: CompileEvent[];
  artifacts: ArtifactRef[];
  trace: TraceRecord | null;
}
export interface CompiledFrame {
  function: string; // co_name as logged (may be empty).
  name: string; // The user's name: co_name, else the one its frame id has in another compile.
  resumes: ResumePoint | null; // torch_dynamo_resume_in_<function>_at_<line>.
  frameId: number | null;
  compiledAutogradId: number | null;
  rank: number | null;
  location: Location | null; // The def line.
  resumeOf: number | null; // Index of the frame whose graph break this frame resumes after.
  status: CompileStatus;
  summary: string;
  compiles: FrameCompile[];
}
export interface ResumePoint {
  function: string;
  line: number;
}
// The frames as the user wrote them: by file and function, a resumed frame
// under the function it resumes, every rank's frames of a function together.
export interface CompiledFunction {
  file: string | null; // Base name.
  path: string | null;
  function: string;
  location: Location | null; // The def line.
  status: CompileStatus;
  summary: string; // "[0/0–0/3] 4 compiles · 3 recompiles · 1.2 s"
  frames: number[]; // Indices into CompilesResult.frames.
}
// With a `uri` that names no user file: frames [], no functions, summary {}.
export interface CompilesResult {
  frames: CompiledFrame[];
  functions?: CompiledFunction[];
  summary: Counts | EmptyObject;
}
export interface CompilesParams {
  uri?: string;
}
export const compilesRequest = new RequestType<CompilesParams, CompilesResult, void>('inductor/compiles');

// `inductor/ranks` `{run?}` → where the ranks of a distributed run diverge,
// each divergence once, on the user line that caused it (server/features/Ranks.cpp).
export interface RanksParams {
  run?: string;
}
export interface RankDivergence {
  kind:
    | 'recompile'
    | 'graph break'
    | 'failure'
    | 'different code'
    | 'collective schedule'
    | 'missing compile'
    | 'cache';
  ranks: number[]; // The ranks that differ from the others.
  of: number; // Ranks in the run.
  compileId: string;
  file: string | null; // Local absolute path of the causing user line.
  line: number | null; // 1-based.
  message: string;
  detail: string;
}
export interface RanksResult {
  count: number;
  divergences: RankDivergence[];
}
export const ranksRequest = new RequestType<RanksParams, RanksResult, void>('inductor/ranks');

// Client command of the code lens on a compiled function's def line:
// ShowCompilesArguments [uri, position, {function, line, compileIds}].
// Reveals the function's frames in the Compiled Frames view.
export const showCompilesCommand = 'inductor.showCompiles';
// `inductor/hotLines` `{limit?, uri?}` → the per-line GPU time table, hottest
// first (see server/features/HotLines.cpp). `label` is what lenses show ("133 µs/step",
// "400 µs total"); `basisText` says whether times are per step or totals.
export interface HotLine {
  location: Location | null; // Null when the line is gone from the file.
  path: string;
  line: number; // 1-based
  code: string;
  ns: number; // Total over the profiles.
  perStepNs: number;
  stepNs: number[]; // Per marked step.
  percent: number;
  label: string;
  launches: number;
  byKind: Record<string, number>;
}
export interface HotKernel {
  location: Location;
  kernel: string;
  compile: string;
  ns: number;
  perStepNs: number;
  stepNs: number[];
  percent: number;
  label: string;
  // How close it ran to the machine (null where unknown, see server/features/HotLines.cpp).
  numGb: number | null; // Inductor's kernel_num_gb of one launch (decimal GB).
  flop: number | null; // Inductor's kernel_flop of one launch (0: none counted).
  achievedGbPerS: number | null;
  achievedTflopPerS: number | null;
  peakPercent: number | null; // Of the bound's peak, 0..100.
  bound: 'memory' | 'compute' | 'latency' | null;
  timeLeftNs: number | null; // Beyond the roofline's least time, total.
  roofline: string; // The hover's roofline text, or why it is unknown.
}
export interface HotLinesResult {
  basis: 'perStep' | 'total' | 'none';
  basisText: string;
  steps: string[];
  stepNs: number[];
  totalNs: number;
  eagerNs: number;
  unjoinedNs: number;
  caveats: string[];
  profiles: string[];
  lines: HotLine[];
  kernels: HotKernel[]; // Hottest first; [] with `uri`.
  peak: string; // The GPU peaks used, or "no peaks: " and why.
  kernelsByTimeLeft: HotKernel[]; // Most time left on the table first.
}
export interface HotLinesParams {
  limit?: number; // Default 200.
  uri?: string; // Only the lines of that user file.
}
export const hotLinesRequest = new RequestType<HotLinesParams, HotLinesResult, void>('inductor/hotLines');

// `inductor/compare` `{baseline?, current?}` → what changed since a baseline
// run (see server/lsp/Compare.cpp): compile-health events new or gone, and each user
// line's kernels and GPU time (µs per step, else total) before and after.
export interface CompareRun {
  id: string;
  logs: string[];
}
export interface CompareEvent {
  change: 'new' | 'gone';
  kind: 'graph break' | 'recompile' | 'failure';
  file: string;
  line: number; // 1-based in the current file.
  code: string;
  message: string;
}
export interface CompareLine {
  file: string;
  line: number; // 1-based in the current file (a gone line's: the baseline's).
  text: string;
  change: 'new' | 'gone' | 'changed' | 'same';
  kernelsBefore: string[];
  kernelsAfter: string[];
  kernelsChanged: string[];
  // As the line's code lens counts kernels (once per graph of each compile), and their compiles.
  kernelCountBefore: number;
  kernelCountAfter: number;
  compilesBefore: number;
  compilesAfter: number;
  gpuTimeBeforeUs: number | null;
  gpuTimeAfterUs: number | null;
}
export interface CompareResult {
  baseline: CompareRun | null; // Null when there is none (reason says why).
  current: CompareRun;
  reason: string;
  basisBefore: 'perStep' | 'total' | 'none';
  basisAfter: 'perStep' | 'total' | 'none';
  events: CompareEvent[];
  lines: CompareLine[];
}
export interface CompareParams {
  baseline?: string; // Run id, "latest", "previous" or a path.
  current?: string;
}
export const compareRequest = new RequestType<CompareParams, CompareResult, void>('inductor/compare');

// The third argument of `inductor.showCompiles` [uri, position, CompilesSelection]:
// a def line's lens opens that function's compiles in the view.
export interface CompilesSelection {
  function: string;
  line: number;
  compileIds: string[];
}

// `Diagnostic.data` of the compile-health diagnostics.
export interface DiagnosticData {
  newSinceRun?: string;
}

// The argument of `inductor.showPrinterEnv` [PrinterEnv], the client command of
// the server's printer code actions: {title, env: {NAME: value}, shell:
// "NAME=value ...", explanation}. The client shows it for the user to copy; it
// never runs anything.
export interface PrinterEnv {
  title: string;
  env: Record<string, string>;
  shell: string;
  explanation: string;
}
export const showPrinterEnvCommand = 'inductor.showPrinterEnv';

// `inductor/runs` `{}` → the runs the traces hold, oldest first: the logs of
// one job each; `current` is the one every answer comes from, `baseline` the
// one it is compared with.
export interface RunEntry {
  id: string;
  startTime: string | null;
  endTime: string | null;
  ranks: number[];
  logs: string[];
  current: boolean;
  baseline: boolean;
}
export interface RunsResult {
  runs: RunEntry[];
}
export const runsRequest = new RequestType<NoParams, RunsResult, void>('inductor/runs');
// `workspace/executeCommand` with one argument, a run id (or "latest",
// "previous", a path; "none" for the baseline).
export const selectRunCommand = 'inductor.selectRun';
export const selectBaselineCommand = 'inductor.selectBaseline';

// workspace/executeCommand: the description's `commands`, by side, each with
// its positional arguments. test/fast/protocol.test.mjs holds both interfaces
// to the description (every command of that side, no other, each argument's
// type) and the extension to them: each client command is registered with a
// handler whose parameters are `...args: <its Arguments type>`, and each server
// command is sent through executeCommandParams, never named as a string
// outside this file.
//
// Client commands: the server's code lenses and code actions carry them, the
// extension runs them.
export type ShowLocationsArguments = [uri: string, position: Position, locations: Location[]];
export type ShowLaunchSitesArguments = [uri: string, position: Position];
export type ShowCompilesArguments = [uri: string, position: Position, selection: CompilesSelection];
export type ShowPrinterEnvArguments = [env: PrinterEnv];
export interface ClientCommands {
  'inductor.showLocations': ShowLocationsArguments;
  'inductor.showLaunchSites': ShowLaunchSitesArguments;
  'inductor.showCompiles': ShowCompilesArguments;
  'inductor.showPrinterEnv': ShowPrinterEnvArguments;
}
// Server commands (the server's executeCommandProvider): the extension sends them.
export interface ServerCommands {
  'inductor.reindex': [];
  'inductor.selectRun': [run: string];
  'inductor.selectBaseline': [run: string];
}
// The params of workspace/executeCommand for server command `command`.
export function executeCommandParams<K extends keyof ServerCommands>(
  command: K,
  ...args: ServerCommands[K]
): ExecuteCommandParams {
  return { command, arguments: args };
}
