// One node-redlock client (https://github.com/mike-marcacci/node-redlock, v4) taking one key over the lock's nodes,
// for NodeRedlockInteropIntegrationTests. Each grant increments a counter on a separate witness server and checks that it
// was alone (1), holds the lock a few milliseconds, then decrements and unlocks. Prints its counts as one JSON line.
// Usage: node node-redlock-interop.js <witness-url> <key> <iterations> <node-url>...
const Redis = require('ioredis');
const Redlock = require('redlock');

const [witnessUrl, key, iterations, ...urls] = process.argv.slice(2);
const clients = urls.map((url) => new Redis(url, { maxRetriesPerRequest: 1 }));
const witness = new Redis(witnessUrl);
const redlock = new Redlock(clients, { retryCount: 0, driftFactor: 0.01 });
const pause = (millis) => new Promise((resolve) => setTimeout(resolve, millis));

(async () => {
  let granted = 0;
  let refused = 0;
  let overlaps = 0;
  for (let i = 0; i < Number(iterations); i++) {
    let lock;
    try {
      lock = await redlock.lock(key, 2000);
    }
    catch (error) {
      refused++;
      await pause(1);
      continue;
    }
    granted++;
    if ((await witness.incr('inside')) !== 1) {
      overlaps++;
    }
    await pause(3);
    await witness.decr('inside');
    await lock.unlock().catch(() => {});
  }
  console.log(JSON.stringify({ granted, refused, overlaps }));
  clients.forEach((client) => client.disconnect());
  witness.disconnect();
})().catch((error) => {
  console.error(error);
  process.exit(2);
});
