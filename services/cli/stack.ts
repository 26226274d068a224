import fs from 'fs';
import { connectionFilePath, writeConnectionFile } from '../stack/connection-file';
import { defaultDataDir } from '../stack/paths';
import { stackDown, stackStatus, stackUp } from '../stack/stack';

// `npm run stack -- up | down | status`: the development stack under .data/ (or MDQ_DATA_DIR).
async function main(): Promise<void> {
  const cmd = process.argv[2];
  const opts = { dataDir: defaultDataDir(), log: (m: string) => console.log(`[stack] ${m}`) };
  switch (cmd) {
    case 'up': {
      const env = await stackUp(opts);
      // Commands run without connection variables use this stack (services/stack/connection-file.ts).
      writeConnectionFile(opts.dataDir, { ...process.env, ...env }, 'npm run stack -- up');
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
        console.log(`${c.name.padEnd(11)} ${c.ready ? 'ready  ' : c.pid ? 'STARTING' : 'DOWN   '} pid=${c.pid ?? '-'} ${c.url}`);
        if (!c.ready && c.log) console.log(c.log.replace(/^/gm, '    '));
      }
      for (const [k, v] of Object.entries(env)) console.log(`${k}=${v}`);
      if (components.some((c) => !c.ready)) process.exitCode = 1;
      break;
    }
    default:
      console.error('usage: npm run stack -- up | down | status');
      process.exitCode = 2;
  }
}

main().catch((err) => {
  console.error(`[stack] ${(err as Error).message}`);
  process.exit(1);
});
