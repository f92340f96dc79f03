import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operatorInputSchema, type OperatorInputResult, type OperatorInput } from '../../approvals/operator-input';
import { bearerGuard } from '../auth';

/**
 * Where the runtime's operator-input plugin reports what a person typed in the terminal UI.
 * Behind the agents' tool token, but no MCP tool reaches it: the model has no way to call it.
 */
export const operatorInputRoutes: FastifyPluginAsyncZod<{ token: string; onInput: (input: OperatorInput) => OperatorInputResult }> = async (app, opts) => {
  app.addHook('onRequest', bearerGuard(opts.token, 'RELAY_TOOLS_TOKEN'));
  app.post('/operator-input', { schema: { body: operatorInputSchema } }, async (request) => {
    const result = opts.onInput(request.body);
    if (result.status !== 'ignored') request.log.info({ ...result }, 'operator input from the terminal UI');
    return result;
  });
};
