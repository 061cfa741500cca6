import { BLOG_CATEGORIES } from '../../content/blog';
import type { BlogCategory } from '../../content/types';

export function categoryLabel(category: BlogCategory): string {
  return BLOG_CATEGORIES.find((c) => c.id === category)?.label ?? category;
}
