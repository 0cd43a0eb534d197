// A stand-in for the Python extension (ms-python.python) in the end-to-end
// runs: it exports the part of the real extension's API that inductor-ls reads
// (`environments.getActiveEnvironmentPath`, `onDidChangeActiveEnvironmentPath`,
// as in the @vscode/python-extension package) and `select`, with which the
// suite plays the user picking another interpreter. It has no activation
// event, like the real one from inductor-ls's point of view: it becomes active
// when inductor-ls activates it (or a test does).
// The interpreter selected at first: INDUCTOR_E2E_PYTHON (set by run.mjs).

const vscode = require('vscode');

function activate(context) {
  let selected = process.env.INDUCTOR_E2E_PYTHON ?? '';
  const changed = new vscode.EventEmitter();
  context.subscriptions.push(changed);
  console.log(`[inductor-e2e] python stub active, interpreter ${selected || '(none)'}`);
  return {
    environments: {
      getActiveEnvironmentPath(_resource) {
        return { id: selected, path: selected };
      },
      onDidChangeActiveEnvironmentPath: changed.event,
    },
    // For the suite: the user selects another interpreter.
    select(interpreter) {
      selected = interpreter;
      changed.fire({ id: interpreter, path: interpreter, resource: undefined });
    },
  };
}

module.exports = { activate, deactivate() {} };
