export * from './types';
export * from './blog';
export * from './updates';
export * from './docs';
export * from './legal';
export * from './about';
export * from './news';
export * from './pages';
