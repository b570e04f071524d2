/autograder/venv/bin/pip install '{sdk}'
apt-get install -y --no-install-recommends nodejs npm
npm install --prefix /autograder/node --no-audit --no-fund --loglevel=error {node}
export PATH="/autograder/{node_bin}:$PATH"
npx --yes --package {inspector} --call true
