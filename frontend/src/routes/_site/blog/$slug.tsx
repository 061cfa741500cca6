import { createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/blog-post';
import noscript from 'virtual:glob-noscript/blog-post';
import { PageHead } from '../../../components/PageHead';
import { findPost } from '../../../content/blog';
import { BlogPostPage, PostNotFound } from '../../../features/blog/BlogPostPage';

export const Route = createFileRoute('/_site/blog/$slug')({
  staticData: { dots: 10 },
  component: BlogPostRoute,
});

function BlogPostRoute() {
  const { slug } = Route.useParams();
  const post = findPost(slug);
  if (!post) {
    return (
      <>
        <PageHead page={head} title="Post Not Found — Glob Network" path={`/blog/${slug}`} noindex noscript={noscript} />
        <PostNotFound />
      </>
    );
  }
  return (
    <>
      <PageHead
        page={head}
        title={`${post.title} — Glob Network`}
        description={post.excerpt}
        path={`/blog/${post.slug}`}
        type="article"
        noscript={noscript}
      />
      <BlogPostPage post={post} />
    </>
  );
}
