import type { ExecutionContext } from '@nestjs/common';

/**
 * A value derived from a route's decorator metadata, computed once per controller class and handler
 * (metadata never changes once the app runs; a handler inherited by two controllers gets one value
 * each). Contexts without a handler or class (hand-built ones) compute it every time.
 */
export function routeMemo<T, A extends unknown[]>(
  compute: (handler: Function, controller: Function, ...args: A) => T,
): (context: ExecutionContext, ...args: A) => T {
  const byController = new WeakMap<Function, Map<Function, T>>();
  return (context, ...args) => {
    const handler = context.getHandler();
    const controller = context.getClass();
    if (typeof handler !== 'function' || typeof controller !== 'function')
      return compute(handler, controller, ...args);
    let byHandler = byController.get(controller);
    if (!byHandler) byController.set(controller, (byHandler = new Map()));
    if (!byHandler.has(handler)) byHandler.set(handler, compute(handler, controller, ...args));
    return byHandler.get(handler)!;
  };
}
