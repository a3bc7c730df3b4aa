#!/usr/bin/env node
// Entry point of the `benchtop` CLI: loads the TypeScript engine through tsx and runs it.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../engine/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
