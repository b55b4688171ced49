/** The program both hosts of the crash tests run: a write, a read, a send that may be interrupted. */
export const crashProgram = `
const first = await tools.send({ to: 'audit', text: 'starting' });
const page = await tools.read({ url: 'https://example.com' });
let sent;
try {
  sent = await tools.send({ to: 'ann', text: 'done' });
} catch (error) {
  sent = String(error.message);
}
return { first: first.from, page: page.from, sent, at: Date.now() };
`;
