import type { BlogCategory, BlogPost } from '../../content/types';

export type BlogFilter = 'all' | BlogCategory;

/** 'all' shows every post except the featured one (shown on its own); a category shows only its posts. */
export function filterPosts(posts: BlogPost[], filter: BlogFilter): BlogPost[] {
  return filter === 'all' ? posts.filter((p) => !p.featured) : posts.filter((p) => p.category === filter);
}

export function featuredPost(posts: BlogPost[]): BlogPost | undefined {
  return posts.find((p) => p.featured);
}
