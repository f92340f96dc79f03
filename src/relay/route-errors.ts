import type { FastifyInstance } from 'fastify';
import { errorBodySchema } from '../core/error-body';

/** A route as it was registered, and whether its refusals are declared as the error body. */
export interface RegisteredRoute {
  method: string;
  url: string;
  declaresErrors: boolean;
}

const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/**
 * A `response` schema that gives every 4xx and 5xx the error body. A status of its own beside it
 * (the deep health check's 503 report) is allowed, so a 5xx may be declared as 500 alone.
 */
export function declaresErrorBody(response: unknown): boolean {
  if (response === null || typeof response !== 'object') return false;
  const by = new Map(Object.entries(response));
  return by.get('4xx') === errorBodySchema && (by.get('5xx') === errorBodySchema || by.get('500') === errorBodySchema);
}

/** Keeps the list of every route registered after it (all scopes), so a test can walk them all. */
export function recordRoutes(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook('onRoute', (route) => {
    routes.push({ method: [route.method].flat().join(','), url: route.url, declaresErrors: declaresErrorBody(route.schema?.response) });
  });
}

/** The routes `recordRoutes` saw on this app, in the order they were registered. */
export const routesOf = (app: FastifyInstance): readonly RegisteredRoute[] => registered.get(app) ?? [];
