import { describe, expect, it } from '@jest/globals';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { BLOG_POSTS } from '../../content/blog';
import { renderWithProviders } from '../../test/render';
import { BlogListPage } from './BlogListPage';
import { featuredPost, filterPosts } from './filter';

describe('blog filter', () => {
  const featured = featuredPost(BLOG_POSTS)!;

  it("'all' shows every post except the featured one", () => {
    const all = filterPosts(BLOG_POSTS, 'all');
    expect(all).toHaveLength(BLOG_POSTS.length - 1);
    expect(all).not.toContain(featured);
  });

  it('a category shows only its posts (the featured one included)', () => {
    const technical = filterPosts(BLOG_POSTS, 'technical');
    expect(technical.length).toBeGreaterThan(0);
    expect(technical.every((p) => p.category === 'technical')).toBe(true);
    expect(filterPosts(BLOG_POSTS, featured.category)).toContain(featured);
  });

  it('renders the grid, filters on click and shows the static pagination and newsletter', async () => {
    const user = userEvent.setup();
    await renderWithProviders(<BlogListPage />, { path: '/blog' });
    await screen.findByRole('heading', { level: 1 });
    const grid = () => screen.getByRole('heading', { name: 'Posts' }).nextElementSibling as HTMLElement;
    expect(screen.getByRole('button', { name: 'All Posts' })).toHaveAttribute('aria-pressed', 'true');
    expect(within(grid()).getAllByRole('article')).toHaveLength(BLOG_POSTS.length - 1);
    expect(screen.getByRole('heading', { level: 2, name: featured.title })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Tutorials' }));
    const tutorials = BLOG_POSTS.filter((p) => p.category === 'tutorials');
    expect(within(grid()).getAllByRole('article')).toHaveLength(tutorials.length);
    for (const p of tutorials) expect(within(grid()).getByRole('link', { name: p.title })).toHaveAttribute('href', `/blog/${p.slug}`);

    const pagination = within(screen.getByRole('navigation', { name: 'Pagination' }));
    for (const label of ['Previous', '1', '2', '3', '8', 'Next']) expect(pagination.getByRole('button', { name: label })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Subscribe' })).toBeInTheDocument();
  });
});
