import { execFileSync } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { cacheDir } from './paths';
import { APICURIO_VERSION, KAFKA_VERSION, SCALA_VERSION } from './versions';

/**
 * Resolves the stack's Java artifacts from Maven Central with `mvn`, once, into the cache.
 * A `.complete` marker is written last, so an interrupted download is redone rather than used.
 */

function mvn(args: string[], cwd: string): void {
  try {
    execFileSync('mvn', ['-q', '-B', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer; message: string };
    const out = `${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`mvn ${args.join(' ')} failed:\n${out || e.message}`, { cause: err });
  }
}

function withLock<T>(dir: string, fn: () => T): T {
  // Two processes (npm start and npm test) may resolve at once; the first to create the lock
  // directory downloads, the other waits for the marker. A stale lock (older than 10 min) is broken.
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      if (fs.existsSync(path.join(dir, '.complete'))) return fn();
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > 10 * 60_000) fs.rmSync(lock, { recursive: true, force: true });
      } catch {
        /* lock vanished meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** Folder holding every runtime jar of the Kafka broker (class path `<dir>/*`). */
export function ensureKafkaJars(log: (m: string) => void = () => {}): string {
  const dir = path.join(cacheDir(), `kafka-${KAFKA_VERSION}`);
  const libs = path.join(dir, 'libs');
  if (fs.existsSync(path.join(dir, '.complete'))) return libs;
  return withLock(dir, () => {
    if (fs.existsSync(path.join(dir, '.complete'))) return libs;
    log(`resolving Apache Kafka ${KAFKA_VERSION} jars from Maven Central (first run only)...`);
    fs.rmSync(libs, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    // slf4j-reload4j is the logging binding Kafka's own distribution ships with.
    fs.writeFileSync(
      path.join(dir, 'pom.xml'),
      `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>local.mdq</groupId><artifactId>kafka-runtime</artifactId><version>1</version><packaging>pom</packaging>
<dependencies>
<dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_${SCALA_VERSION}</artifactId><version>${KAFKA_VERSION}</version></dependency>
<dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
</dependencies></project>\n`,
    );
    mvn(['dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${libs}`], dir);
    fs.writeFileSync(path.join(dir, '.complete'), new Date().toISOString());
    return libs;
  });
}

/** Path of the Apicurio Registry runner jar, unpacked from its `all` assembly. */
export function ensureApicurio(log: (m: string) => void = () => {}): string {
  const dir = path.join(cacheDir(), `apicurio-${APICURIO_VERSION}`);
  const jar = path.join(dir, `apicurio-registry-app-${APICURIO_VERSION}-runner.jar`);
  if (fs.existsSync(path.join(dir, '.complete'))) return jar;
  return withLock(dir, () => {
    if (fs.existsSync(path.join(dir, '.complete'))) return jar;
    log(`resolving Apicurio Registry ${APICURIO_VERSION} from Maven Central (first run only, ~100 MB)...`);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mdq-apicurio-'));
    try {
      const artifact = `io.apicurio:apicurio-registry-app:${APICURIO_VERSION}:tar.gz:all`;
      mvn(['dependency:copy', `-Dartifact=${artifact}`, `-DoutputDirectory=${work}`, '-Dmdep.stripVersion=false'], work);
      const tgz = fs.readdirSync(work).find((f) => f.endsWith('.tar.gz'));
      if (!tgz) throw new Error(`mvn did not deliver ${artifact}`);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      execFileSync('tar', ['xzf', path.join(work, tgz), '-C', dir]);
      if (!fs.existsSync(jar)) throw new Error(`${jar} missing after unpacking ${tgz}`);
      fs.writeFileSync(path.join(dir, '.complete'), new Date().toISOString());
      return jar;
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
}
