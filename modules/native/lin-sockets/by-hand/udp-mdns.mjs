// By hand, inside the simulator's namespace (run.sh beside this file: MCAST=1 NOPROBE=1
// MEASURE="node <this file>"), an app built with udpEchoTest=true mdns=true and a profile with
// mirroring ports (media-board): (1) 250 datagrams of 1,400 bytes at 125 a second to the echo
// port (7019), counting the echoes; (2) a legacy unicast mDNS query (RFC 6762 6.7: from an
// ephemeral port, the client joins no group) for PTR _vendorplay._tcp.local sent to
// 224.0.0.251:5353: answered only if the receiver's socket joined the group itself.
import dgram from 'node:dgram';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function echo() {
  const socket = dgram.createSocket('udp4');
  let echoed = 0;
  socket.on('message', () => echoed++);
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const started = Date.now();
  for (let i = 0; i < 250; i++) {
    const bytes = Buffer.alloc(1400, i & 0xff);
    socket.send(bytes, 7019, '127.0.0.1');
    await pause(8);
  }
  const sendMs = Date.now() - started;
  await pause(2000);
  console.log(`udp echo: 250 sent in ${sendMs} ms (${(250000 / sendMs).toFixed(0)}/s), ${echoed} echoed back`);
  socket.close();
}

function ptrQuery(name) {
  const labels = name.split('.').flatMap((label) => [Buffer.from([label.length]), Buffer.from(label)]);
  return Buffer.concat([Buffer.from([0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, 0, 12, 0, 1])]);
}

async function mdns() {
  const socket = dgram.createSocket({ type: 'udp4' });
  const answers = [];
  socket.on('message', (message, from) => answers.push({ message, from }));
  await new Promise((resolve) => socket.bind(0, resolve));
  socket.send(ptrQuery('_vendorplay._tcp.local'), 5353, '224.0.0.251');
  await pause(1500);
  if (answers.length === 0) console.log('mdns: legacy unicast PTR query to 224.0.0.251:5353: no answer in 1.5 s');
  for (const { message, from } of answers) {
    const text = message.toString('latin1');
    console.log(`mdns: answer from ${from.address}:${from.port}, ${message.length} bytes, id 0x${message.readUInt16BE(0).toString(16)}, ${message.readUInt16BE(6)} answers, names the instance "Frame": ${text.includes('Frame')}`);
  }
  socket.close();
}

await echo();
await mdns();
