import fs from 'fs';
import { connectionFilePath, writeConnectionFile } from '../stack/connection-file';
import { defaultDataDir } from '../stack/paths';
import { stackProfile } from '../stack/profile';
import { stackDown, stackStatus, stackUp } from '../stack/stack';

const USAGE = 'usage: npm run stack -- up | down | status [--cluster]';

// `npm run stack -- up | down | status`: the development stack under .data/ (or MDQ_DATA_DIR);
// with --cluster (or MDQ_STACK_PROFILE=cluster) the cluster profile's, under .data/cluster/.
async function main(): Promise<void> {
  const [cmd, ...flags] = process.argv.slice(2);
  const unknown = flags.filter((f) => f !== '--cluster');
  if (unknown.length) {
    console.error(`unknown option ${unknown.join(' ')}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const profile = flags.includes('--cluster') ? 'cluster' : stackProfile();
  const opts = { dataDir: defaultDataDir(profile), profile, log: (m: string) => console.log(`[stack] ${m}`) };
  switch (cmd) {
    case 'up': {
      const started = Date.now();
      const env = await stackUp(opts);
      // Commands run without connection variables use this stack (services/stack/connection-file.ts).
      writeConnectionFile(opts.dataDir, { ...process.env, ...env }, 'npm run stack -- up');
      console.log(`[stack] ${profile} stack up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      for (const [k, v] of Object.entries(env)) console.log(`${k}=${v}`);
      break;
    }
    case 'down':
      await stackDown(opts);
      fs.rmSync(connectionFilePath(opts.dataDir), { force: true });
      break;
    case 'status': {
      const { env, components } = await stackStatus(opts);
      for (const c of components) {
        console.log(`${c.name.padEnd(13)} ${c.ready ? 'ready  ' : c.pid ? 'STARTING' : 'DOWN   '} pid=${c.pid ?? '-'} ${c.url}`);
        for (const n of c.nodes)
          console.log(`  ${n.name.padEnd(11)} ${n.pid ? 'up  ' : 'DOWN'} pid=${String(n.pid ?? '-').padEnd(7)} ${n.url.padEnd(16)} ${n.role}`);
        if (!c.ready && c.log) console.log(c.log.replace(/^/gm, '    '));
      }
      for (const [k, v] of Object.entries(env)) console.log(`${k}=${v}`);
      if (components.some((c) => !c.ready)) process.exitCode = 1;
      break;
    }
    default:
      console.error(USAGE);
      process.exitCode = 2;
  }
}

main().catch((err) => {
  console.error(`[stack] ${(err as Error).message}`);
  process.exit(1);
});
