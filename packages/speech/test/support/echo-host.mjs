// A helper process for child-host tests: answers each request with its own payload.
process.on('message', (m) => process.send({ id: m.id, echo: m.echo }));
