// Lets a child process (node -r ./register-ts.cjs child.ts) run the API's TypeScript sources the
// way jest does: swc to CommonJS, and @centralita/* pointing at the libraries' sources.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const root = path.resolve(__dirname, '../../../..');
const aliases = {
  '@centralita/contracts': path.join(root, 'libs/contracts/src/index.ts'),
  '@centralita/contracts/server': path.join(root, 'libs/contracts/src/server/index.ts'),
  '@centralita/domain': path.join(root, 'libs/domain/src/index.ts'),
  // Without it the channels library would load from its last build (dist), not the sources under test.
  '@centralita/channels': path.join(root, 'libs/channels/src/index.ts'),
};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return aliases[request] ?? resolve.call(this, request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
