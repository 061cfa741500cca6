import { describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders } from '../../test/render';
import { ContactPage } from './ContactPage';
import { MESSAGES } from './validation';

async function setup() {
  const user = userEvent.setup();
  await renderWithProviders(<ContactPage />, { path: '/contact' });
  await screen.findByRole('heading', { level: 1 });
  return user;
}

async function fillContact(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText(/Full Name/), 'Ada Lovelace');
  await user.type(screen.getByLabelText(/Email Address/), 'ada@example.com');
  await user.selectOptions(screen.getByLabelText(/Subject/), 'partnership');
  await user.type(screen.getByLabelText(/Message/), 'We would like to run our models on your network.');
  await user.click(screen.getByRole('checkbox'));
}

async function fillTestimonial(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText(/Full Name/), 'Grace Hopper');
  await user.type(screen.getByLabelText(/Email Address/), 'grace@example.com');
  await user.type(screen.getByLabelText(/Role or Company/), 'Researcher');
  await user.type(screen.getByLabelText(/Your Experience/), 'My idle GPU now pays for my own inference.');
  await user.click(screen.getByRole('checkbox'));
}

const send = (user: ReturnType<typeof userEvent.setup>) => user.click(screen.getByRole('button', { name: 'Send Message' }));
const submitTestimonial = (user: ReturnType<typeof userEvent.setup>) => user.click(screen.getByRole('button', { name: 'Submit Testimonial' }));

describe('contact tabs', () => {
  it("opens on 'Contact Form' and switches to 'Submit Testimonial' by click and arrow keys", async () => {
    const user = await setup();
    const contactTab = screen.getByRole('tab', { name: 'Contact Form' });
    const testimonialTab = screen.getByRole('tab', { name: 'Submit Testimonial' });
    expect(contactTab).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('form', { name: 'Contact form' })).toBeInTheDocument();
    await user.click(testimonialTab);
    expect(testimonialTab).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('form', { name: 'Testimonial form' })).toBeInTheDocument();
    await user.keyboard('{ArrowLeft}');
    expect(contactTab).toHaveAttribute('aria-selected', 'true');
    expect(contactTab).toHaveFocus();
  });

  it('links to the privacy policy and the FAQ', async () => {
    await setup();
    expect(screen.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy-policy');
    expect(screen.getByRole('link', { name: /More answers in the FAQ/ })).toHaveAttribute('href', '/documentation#faq');
  });
});

describe('contact form', () => {
  it('shows every validation error, sends nothing and focuses the first invalid field', async () => {
    let calls = 0;
    server.use(
      http.post('/api/contact/submit', ({ response }) => {
        calls += 1;
        return response(201).json({ id: 'x', message: 'ok' });
      }),
    );
    const user = await setup();
    await user.type(screen.getByLabelText(/Email Address/), 'not-an-email');
    await send(user);
    expect(screen.getByText(MESSAGES.name)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.emailFormat)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.subject)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.message)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.agreedToTerms)).toBeInTheDocument();
    expect(screen.getByLabelText(/Full Name/)).toHaveAttribute('aria-invalid', 'true');
    await waitFor(() => expect(screen.getByLabelText(/Full Name/)).toHaveFocus());
    expect(calls).toBe(0);
  });

  it("sends the message, shows the server's success text and clears the form", async () => {
    let body: unknown;
    server.use(
      http.post('/api/contact/submit', async ({ request, response }) => {
        body = await request.json();
        return response(201).json({ id: '2d7e9c41-5b3a-4f0e-8d6c-1a9b7e3f5c20', message: 'Got it, Ada!' });
      }),
    );
    const user = await setup();
    await fillContact(user);
    await send(user);
    expect(await screen.findByRole('status')).toHaveTextContent('Got it, Ada!');
    expect(body).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      subject: 'partnership',
      message: 'We would like to run our models on your network.',
      agreedToTerms: true,
    });
    expect(screen.getByLabelText(/Full Name/)).toHaveValue('');
    expect(screen.getByLabelText(/Email Address/)).toHaveValue('');
    expect(screen.getByLabelText(/Subject/)).toHaveValue('');
    expect(screen.getByLabelText(/Message/)).toHaveValue('');
    expect(screen.getByRole('checkbox')).not.toBeChecked();
  });

  it('uses the default success text when the server sends none', async () => {
    server.use(plain.post('http://localhost/api/contact/submit', () => HttpResponse.json({ id: 'x' }, { status: 201 })));
    const user = await setup();
    await fillContact(user);
    await send(user);
    expect(await screen.findByRole('status')).toHaveTextContent('Thank you for your message! We will get back to you soon.');
  });

  it("shows the server's error text and keeps the form", async () => {
    server.use(
      http.post('/api/contact/submit', ({ response }) =>
        response(429).json({ statusCode: 429, message: 'Too many requests. Please try again in 60 seconds.', error: 'Too Many Requests' }),
      ),
    );
    const user = await setup();
    await fillContact(user);
    await send(user);
    expect(await screen.findByRole('alert')).toHaveTextContent('Too many requests. Please try again in 60 seconds.');
    expect(screen.getByLabelText(/Full Name/)).toHaveValue('Ada Lovelace');
  });

  it("shows the server's error field when there is no message", async () => {
    server.use(plain.post('http://localhost/api/contact/submit', () => HttpResponse.json({ error: 'Bad Request' }, { status: 400 })));
    const user = await setup();
    await fillContact(user);
    await send(user);
    expect(await screen.findByRole('alert')).toHaveTextContent('Bad Request');
  });

  it('falls back to the default failure text', async () => {
    server.use(plain.post('http://localhost/api/contact/submit', () => new HttpResponse('Bad gateway', { status: 502 })));
    const user = await setup();
    await fillContact(user);
    await send(user);
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to send message. Please try again.');
  });

  it('shows the network error text when the request cannot be made', async () => {
    server.use(plain.post('http://localhost/api/contact/submit', () => HttpResponse.error()));
    const user = await setup();
    await fillContact(user);
    await send(user);
    expect(await screen.findByRole('alert')).toHaveTextContent('An error occurred. Please try again later.');
  });
});

describe('testimonial form', () => {
  const openTab = async () => {
    const user = await setup();
    await user.click(screen.getByRole('tab', { name: 'Submit Testimonial' }));
    return user;
  };

  it('requires name, email, message and consent (role optional), sends nothing otherwise', async () => {
    let calls = 0;
    server.use(
      http.post('/api/contact/testimonial', ({ response }) => {
        calls += 1;
        return response(201).json({ id: 'x', message: 'ok' });
      }),
    );
    const user = await openTab();
    await submitTestimonial(user);
    for (const m of [MESSAGES.name, MESSAGES.email, MESSAGES.message, MESSAGES.consent]) expect(screen.getByText(m)).toBeInTheDocument();
    expect(screen.getByLabelText(/Role or Company/)).not.toHaveAttribute('aria-invalid');
    expect(calls).toBe(0);
  });

  it('sends rating 5 whatever star is pressed, never the photo, and clears the form', async () => {
    let body: unknown;
    server.use(
      http.post('/api/contact/testimonial', async ({ request, response }) => {
        body = await request.json();
        return response(201).json({
          id: '8a4f6e2c-1d9b-4c7a-b3e5-0f2d8c6a4e19',
          message: 'Thank you for sharing your experience with Glob Network!',
        });
      }),
    );
    const user = await openTab();
    await fillTestimonial(user);
    const stars = within(screen.getByRole('group', { name: 'Rating' }));
    await user.click(stars.getByRole('button', { name: '2 stars' }));
    expect(stars.getByRole('button', { name: '5 stars' })).toHaveAttribute('aria-pressed', 'true');
    await user.upload(screen.getByLabelText(/Photo/), new File(['x'], 'me.png', { type: 'image/png' }));
    await submitTestimonial(user);
    expect(await screen.findByRole('status')).toHaveTextContent('Thank you for sharing your experience with Glob Network!');
    expect(body).toEqual({
      name: 'Grace Hopper',
      email: 'grace@example.com',
      role: 'Researcher',
      message: 'My idle GPU now pays for my own inference.',
      rating: 5,
      consent: true,
    });
    expect(screen.getByLabelText(/Full Name/)).toHaveValue('');
    expect(screen.getByLabelText(/Your Experience/)).toHaveValue('');
    expect(screen.getByRole('checkbox')).not.toBeChecked();
  });

  it('uses the default success text with the product name when the server sends none', async () => {
    server.use(plain.post('http://localhost/api/contact/testimonial', () => HttpResponse.json({ id: 'x', message: '' }, { status: 201 })));
    const user = await openTab();
    await fillTestimonial(user);
    await submitTestimonial(user);
    expect(await screen.findByRole('status')).toHaveTextContent('Thank you for sharing your experience with Glob Network!');
  });

  it("shows the server's error text, else the default failure text", async () => {
    server.use(
      http.post('/api/contact/testimonial', ({ response }) =>
        response(400).json({ statusCode: 400, message: 'request/body/email must match format "email"', error: 'Bad Request' }),
      ),
    );
    const user = await openTab();
    await fillTestimonial(user);
    await submitTestimonial(user);
    expect(await screen.findByRole('alert')).toHaveTextContent('request/body/email must match format "email"');

    server.use(plain.post('http://localhost/api/contact/testimonial', () => new HttpResponse(null, { status: 500 })));
    await submitTestimonial(user);
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Failed to submit testimonial. Please try again.'));
  });

  it('shows the network error text', async () => {
    server.use(plain.post('http://localhost/api/contact/testimonial', () => HttpResponse.error()));
    const user = await openTab();
    await fillTestimonial(user);
    await submitTestimonial(user);
    expect(await screen.findByRole('alert')).toHaveTextContent('An error occurred. Please try again later.');
  });
});
