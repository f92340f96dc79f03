import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createMcpDeviceTools, type McpDeviceTools } from '../../src/adapters/device-tools/mcp-device-tools';
import { startLab, type RunningLab } from '../../harness/ios-lab/server';
import { deviceContractSuite } from '../helpers/device-contract-suite';

/** The simulated IOS lab keeps the device-tool contract, over MCP, as the device server does. */
let running: RunningLab;
let tools: McpDeviceTools;

beforeAll(async () => {
  running = await startLab({ host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) });
  tools = createMcpDeviceTools(running.mcpUrl);
});
afterAll(async () => {
  await tools?.close();
  await running?.stop();
});

deviceContractSuite('the simulated IOS lab', () => ({
  tools,
  device: 'R1',
  show: { command: 'show ip bgp summary', holds: '10.0.0.2' },
  change: ['router bgp 65001', 'neighbor 10.0.0.2 description contract-suite'],
  marker: 'contract-suite',
  undo: ['router bgp 65001', 'no neighbor 10.0.0.2 description'],
  refused: ['router bgp 65001', 'neighbor 10.0.0.2 no-such-keyword'],
}));
