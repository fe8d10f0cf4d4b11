// Stand-in for your vision agent: it returns answers a real model gave to these questions (from the
// project's labelled multimodal cases), so the example runs without one. Replace `ask` with your agent.
const RECORDED: Record<string, string> = {
  'Which region has the highest average revenue? State the region name and the dollar amount shown in the chart.':
    'North America has the highest average revenue per paying member, at $14.10.',
  'Extract the invoice number, the invoice date and the total due as JSON with keys number, date, total.':
    '{"number": "INV-2026-0412", "date": "2026-03-18", "total": "$1,296.00"}',
  'Describe the controls a user can interact with on this screen.':
    'There are Email and Password input fields, a blue Sign in button, and a Forgot password? link below it.',
  'What is the name of the product shown? Answer with the name only.':
    'The product shown on this sign-in screen is Acme Console.',
}

/** Asks the agent a question about an image. */
export async function ask(_image: URL, question: string): Promise<string> {
  const answer = RECORDED[question]
  if (answer === undefined) throw new Error(`no recorded answer for: ${question}`)
  return answer
}
