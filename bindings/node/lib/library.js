'use strict';
// A bundle's shared library (BUNDLE/build/libsaguaro.so, built by the bundle's CMake), found or built, and the
// addon that loads it (build/Release/saguaro.node, built by node-gyp when the package installs).
const childProcess = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { SaguaroError } = require('./errors');

const ADDON = path.join(__dirname, '..', 'build', 'Release', 'saguaro.node');

function loadAddon() {
  try {
    return require(ADDON);
  } catch (e) {
    // npm builds the addon when it installs the package (scripts/build.js), unless install scripts were skipped.
    throw new Error(`saguaro: cannot load the addon ${ADDON} (${e.message.split('\n')[0]}); ` +
                    '`npm rebuild saguaro` builds it');
  }
}

const addon = loadAddon();

function libraryPath(bundle) {
  return path.join(bundle, 'build', 'libsaguaro.so');
}

/** Builds the bundle with CMake, as `saguaro run` does (into BUNDLE/build, log in BUNDLE/build.log). */
function build(bundle) {
  const log = path.join(bundle, 'build.log');
  const out = path.join(bundle, 'build');
  const steps = [['cmake', '-S', bundle, '-B', out, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release'],
                 ['cmake', '--build', out, '--target', 'saguaro_shared']];
  const fd = fs.openSync(log, 'a');
  try {
    for (const [program, ...args] of steps) {
      const done = childProcess.spawnSync(program, args, { stdio: ['ignore', fd, fd] });
      if (done.error) {
        throw new SaguaroError(`${bundle}: cannot build the bundle's library: ${program}: ${done.error.message}`);
      }
      if (done.status !== 0) {
        throw new SaguaroError(`${bundle}: building the bundle's library failed (see ${log}); a bundle compiled ` +
                               'before libsaguaro.so existed needs compiling again (saguaro compile)');
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The real path of the bundle directory's libsaguaro.so, building it first when it is missing. */
function bundleLibrary(bundle) {
  let stat = null;
  try {
    stat = fs.statSync(bundle);
  } catch {
    // missing: said below
  }
  if (!stat || !stat.isDirectory()) {
    const what = stat ? 'not a directory' : 'no such bundle directory';
    throw new SaguaroError(`${bundle}: ${what} (saguaro compile MODEL -o BUNDLE_DIR makes one)`);
  }
  const library = libraryPath(bundle);
  if (!fs.existsSync(library)) {
    if (!fs.existsSync(path.join(bundle, 'CMakeLists.txt'))) {
      throw new SaguaroError(`${bundle}: not a bundle directory (no CMakeLists.txt)`);
    }
    build(bundle);
  }
  return fs.realpathSync(library);
}

module.exports = { addon, bundleLibrary };
