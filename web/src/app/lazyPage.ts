import { type ComponentType, createElement, lazy } from 'react';

export type LazyPage = ComponentType & { preload: () => void };

// After an upgrade an open tab still asks for the old chunk names, which are gone: reload once to get
// the new index.html. The mark in sessionStorage keeps a missing chunk from reloading forever.
const RELOADED = 'arcvsa.chunk-reload';

async function withReload<T>(load: () => Promise<T>): Promise<T> {
  try {
    const module = await load();
    sessionStorage.removeItem(RELOADED);
    return module;
  } catch (error) {
    if (sessionStorage.getItem(RELOADED)) throw error;
    sessionStorage.setItem(RELOADED, '1');
    window.location.reload();
    return new Promise<T>(() => {}); // the page goes away
  }
}

/**
 * A page loaded on first visit (its own chunk in the production bundle), from a module that exports it by
 * name: `lazyPage(() => import('../pages/x/XPage'), 'XPage')`. `preload()` starts the fetch early.
 *
 * Once the chunk is in, the page renders directly rather than through React.lazy: a lazy component
 * suspends at least once, and React then holds the fallback for 300 ms before showing the page.
 */
export function lazyPage<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K): LazyPage {
  let loaded: ComponentType | null = null;
  let loading: Promise<{ default: ComponentType }> | null = null;
  const start = () => {
    loading ??= withReload(load).then((module) => {
      loaded = module[name];
      return { default: loaded };
    });
    return loading;
  };
  const Lazy = lazy(start);
  const Page = () => createElement(loaded ?? Lazy);
  return Object.assign(Page, { preload: () => void start() });
}
