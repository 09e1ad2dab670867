'use strict';
// The package's install step: node-gyp builds the addon against the headers of the Node.js that runs it
// (PREFIX/include/node, from Debian's libnode-dev or a Node.js install), never downloading headers (--nodedir).
const childProcess = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const prefix = path.dirname(path.dirname(fs.realpathSync(process.execPath)));
const headers = path.join(prefix, 'include', 'node');
if (!fs.existsSync(path.join(headers, 'node_api.h'))) {
  console.error(`saguaro: no Node.js headers in ${headers} for ${process.execPath} ` +
                '(Debian: apt-get install libnode-dev)');
  process.exit(1);
}
// npm names the node-gyp it ships in npm_config_node_gyp; otherwise the one on PATH (npm puts its own there too).
const gyp = process.env.npm_config_node_gyp;
const [program, args] = gyp ? [process.execPath, [gyp]] : ['node-gyp', []];
const done = childProcess.spawnSync(program, [...args, 'rebuild', `--nodedir=${prefix}`], { stdio: 'inherit' });
if (done.error) {
  console.error(`saguaro: cannot run ${program}: ${done.error.message}`);
  process.exit(1);
}
process.exit(done.status === null ? 1 : done.status);
